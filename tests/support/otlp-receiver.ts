import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';

/** An attribute value of OTLP's JSON encoding. */
type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };

/** One span as received, its attributes flattened to plain values. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a trace's root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  /** The scope (instrumentation) that made it. */
  readonly scope: string;
}

/** A local OTLP/HTTP collector of traces, for tests: it keeps every span posted to /v1/traces. */
export interface OtlpReceiver {
  /** The endpoint as OTEL_EXPORTER_OTLP_ENDPOINT takes it (the exporter adds /v1/traces). */
  readonly url: string;
  readonly spans: readonly ReceivedSpan[];
  /** The paths posted to, in order: an exporter of metrics or logs would show here. */
  readonly paths: readonly string[];
  close(): Promise<void>;
}

interface ExportRequest {
  resourceSpans?: {
    scopeSpans?: {
      scope?: { name?: string };
      spans?: (Omit<ReceivedSpan, 'attributes' | 'scope' | 'parentSpanId'> & {
        parentSpanId?: string;
        attributes?: { key: string; value: AnyValue }[];
      })[];
    }[];
  }[];
}

const plain = (value: AnyValue): string | number | boolean =>
  value.stringValue ??
  (value.intValue === undefined ? undefined : Number(value.intValue)) ??
  value.boolValue ??
  value.doubleValue ??
  '';

/** Reads one export request of OTLP's JSON encoding (the OTLP/HTTP exporter's default), gzipped or not. */
function spansOf(body: Buffer, encoding: string | undefined): ReceivedSpan[] {
  const text = (encoding === 'gzip' ? gunzipSync(body) : body).toString('utf8');
  const request = JSON.parse(text) as ExportRequest;
  return (request.resourceSpans ?? []).flatMap((resource) =>
    (resource.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind,
        scope: scope.scope?.name ?? '',
        attributes: Object.fromEntries((span.attributes ?? []).map((a) => [a.key, plain(a.value)])),
      })),
    ),
  );
}

/** Starts a receiver on a free loopback port; the caller must `close` it. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const paths: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      paths.push(request.url ?? '');
      const type = request.headers['content-type'] ?? '';
      if (request.url !== '/v1/traces' || !type.startsWith('application/json')) {
        response.writeHead(415).end();
        return;
      }
      spans.push(...spansOf(Buffer.concat(chunks), request.headers['content-encoding']));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the receiver has no TCP port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    spans,
    paths,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
