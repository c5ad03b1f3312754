import { register } from 'node:module';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK, resources } from '@opentelemetry/sdk-node';

/** How the service's traces are kept clean. */
export interface TracingOptions {
  /** Makes a request's path or query safe to export: a key sent in it must not reach a trace. */
  readonly redactPath: (path: string) => string;
  /** Paths whose requests are not traced (probes and scrapes, which would drown the requests). */
  readonly untracedPaths: ReadonlySet<string>;
}

/** The running OpenTelemetry SDK. */
export interface Tracing {
  /** Exports the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry's Node SDK: traces only, exported as OTLP over HTTP to the endpoint of the
 * standard variables (OTEL_EXPORTER_OTLP_ENDPOINT, ...), with the http, pg and ioredis
 * instrumentations. Must run before the service's modules are imported (`node --import`): pg and
 * ioredis are CommonJS packages imported from ES modules, which the instrumentations can only patch
 * through import-in-the-middle's loader hook, registered here for those packages alone. Call it once.
 */
export function startTracing(options: TracingOptions): Tracing {
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, {
    data: { include: ['ioredis', 'pg', 'pg-pool'] },
  });
  const sdk = new NodeSDK({
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, read by the SDK, take precedence.
    resource: resources.resourceFromAttributes({ 'service.name': 'petstore-inventory' }),
    traceExporter: new OTLPTraceExporter(),
    // Metrics and logs have their own ways out (Prometheus, pino): none through OpenTelemetry.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => options.untracedPaths.has(splitUrl(request.url).path),
        // The service makes no HTTP calls of its own; the exporter's are not traced either way.
        ignoreOutgoingRequestHook: () => true,
        // These replace the instrumentation's own url.path and url.query.
        startIncomingSpanHook: (request) => {
          const { path, query } = splitUrl(request.url);
          const redacted = { 'url.path': options.redactPath(path) };
          return query === undefined ? redacted : { ...redacted, 'url.query': options.redactPath(query) };
        },
      }),
      // Spans only inside a request's trace; the statement without its values, the command without its keys.
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
    ],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}

/** A request target's path and query (without its `?`). */
function splitUrl(url: string | undefined): { path: string; query: string | undefined } {
  const target = url ?? '/';
  const mark = target.indexOf('?');
  return mark === -1
    ? { path: target, query: undefined }
    : { path: target.slice(0, mark), query: target.slice(mark + 1) };
}
