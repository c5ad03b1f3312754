import { loggablePath } from '../adapters/http/access-log.js';
import type { RequestTracing } from '../adapters/http/request-tracing.js';
import { requirePeers } from '../adapters/shared/peer-packages.js';
import { type Config, readConfig } from './config.js';
import type { PortTracing } from './instrumentation.js';
import { TRACING_PEERS } from './service-peers.js';

/** The running OpenTelemetry SDK. */
interface Tracing {
  shutdown(): Promise<void>;
}

let running: Tracing | undefined;

/** Requests not traced: probes and scrapes, which come every few seconds and would drown the requests. */
const UNTRACED_PATHS: ReadonlySet<string> = new Set(['/livez', '/readyz', '/metrics']);

/**
 * Starts OpenTelemetry when the configuration asks for it (OTEL_EXPORTER_OTLP_ENDPOINT), for
 * src/tracing.ts, which `node --import` loads before the service. A configuration that cannot be read
 * starts nothing: the service then stops with the message that names the variable. An endpoint set
 * without the OpenTelemetry packages throws a MissingPeerError naming the npm install line.
 */
export async function startTracingIfConfigured(env: Readonly<Record<string, string | undefined>>): Promise<void> {
  let config: Config;
  try {
    config = readConfig(env);
  } catch {
    return;
  }
  if (config.tracing === undefined || running !== undefined) return;
  // Only an endpoint set loads OpenTelemetry; without its packages that is a setting the start cannot keep.
  await requirePeers('OTEL_EXPORTER_OTLP_ENDPOINT (tracing)', TRACING_PEERS);
  const { startTracing } = await import('../adapters/opentelemetry/start-tracing.js');
  running = startTracing({ redactPath: loggablePath, untracedPaths: UNTRACED_PATHS });
}

/** Whether traces are being exported: OpenTelemetry was started before the service's modules. */
export const tracingStarted = (): boolean => running !== undefined;

/** What the service's parts and the HTTP app get of tracing: spans around the ports, and the request's name. */
export interface TracingParts {
  /** Spans around every storage port and the rate limiter, and the SDK's shutdown (see service-parts.ts). */
  readonly ports: PortTracing;
  readonly requests: RequestTracing;
}

/**
 * Spans around every storage port and the rate limiter (children of the request's span, parents of
 * pg's and ioredis's), the request's span named by its route template, and the SDK's shutdown, which
 * exports what is still buffered, at the lifecycle's stop. Their modules are imported only when tracing
 * runs.
 */
export async function tracingParts(): Promise<TracingParts> {
  const tracing = running;
  if (tracing === undefined) throw new Error('tracing was not started');
  const [{ tracedPort }, { requestSpans }] = await Promise.all([
    import('../adapters/opentelemetry/traced-port.js'),
    import('../adapters/opentelemetry/request-span.js'),
  ]);
  return { ports: { port: tracedPort, shutdown: () => tracing.shutdown() }, requests: requestSpans };
}
