import type { CountableLimiter, LimiterRole } from '../adapters/prometheus/counted-rate-limiter.js';
import type { FailoverCounters, ServiceMetrics } from '../adapters/prometheus/service-metrics.js';
import { STORAGE_PORT_NAMES, type StoragePorts } from '../application/ports/storage-ports.js';

/** What tracing gives the service: a span around each call of a port, and the SDK's shutdown. */
export interface PortTracing {
  /** Wraps `port` so that each call is a span `<name>.<method>`, the active span while it works. */
  port<T extends object>(port: T, name: string): T;
  /** Exports the spans still buffered, and stops the SDK. */
  shutdown(): Promise<void>;
}

/**
 * What the service puts around the adapters it makes: metrics when they are on, spans when tracing
 * runs, nothing otherwise (see instrumentationOf).
 */
export interface Instrumentation {
  /** Every storage port as the core gets it: each call timed by port and method, and a span `<name>.<method>`. */
  storagePorts(ports: StoragePorts): StoragePorts;
  /** A limiter that decides, its decisions counted under `role`. */
  limiter(limiter: CountableLimiter, role: LimiterRole): CountableLimiter;
  /** The rate limiter as the core gets it: each call a span `rate_limiter.<method>`. */
  rateLimiter<T extends object>(limiter: T): T;
  /** Exports a failover limiter's counters of its outages, read at each scrape. Call at most once. */
  failover(status: () => FailoverCounters): void;
}

/**
 * The instrumentation of `metrics` and `tracing`, either of which may be absent: a storage port is timed
 * first, then traced (the span covers the timing), a limiter counted, the limiter the core gets traced.
 */
export function instrumentationOf(
  metrics: ServiceMetrics | undefined,
  tracing: PortTracing | undefined,
): Instrumentation {
  const storagePort = <T extends object>(port: T, name: string): T => {
    const timed = metrics === undefined ? port : metrics.timePort(port, name);
    return tracing === undefined ? timed : tracing.port(timed, name);
  };
  return {
    storagePorts: (ports) =>
      Object.fromEntries(STORAGE_PORT_NAMES.map((name) => [name, storagePort(ports[name], name)])) as StoragePorts,
    limiter: (limiter, role) => (metrics === undefined ? limiter : metrics.countLimiter(limiter, role)),
    rateLimiter: (limiter) => (tracing === undefined ? limiter : tracing.port(limiter, 'rate_limiter')),
    failover: (status) => metrics?.watchFailover(status),
  };
}
