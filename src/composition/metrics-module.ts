import { ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import { FailoverRateLimiter } from '../adapters/failover/failover-rate-limiter.js';
import { createMetricsApp } from '../adapters/http/metrics-app.js';
import { cachedExposition, type HttpMetrics, METRICS_MAX_AGE_MS } from '../adapters/http/request-metrics.js';
import type { ServiceMetrics } from '../adapters/prometheus/service-metrics.js';
import type { Config } from './config.js';
import { listen, type RunningServer } from './http-server.js';
import { type Instrumentation, id, TOKENS, type Token } from './tokens.js';

/** The storage ports, by the name their metrics and spans carry. */
export const STORAGE_PORTS: readonly (readonly [string, Token<object>])[] = [
  ['inventory', TOKENS.inventory],
  ['changes', TOKENS.changes],
  ['feed', TOKENS.feed],
  ['webhooks', TOKENS.webhooks],
  ['pets', TOKENS.pets],
  ['orders', TOKENS.orders],
  ['keys', TOKENS.keys],
];

/**
 * Puts `metrics` around what the container builds, whichever adapters it holds: every storage port is
 * timed as it is first resolved (memory, SQLite or any other store alike), every limiter counts its
 * decisions under its role, the SQLite group commit reports its batch sizes, and the counters of a
 * failover limiter are read at each scrape.
 */
export const metricsModule = (metrics: ServiceMetrics) =>
  new ContainerModule((options) => {
    const instrumentation: Instrumentation = {
      limiter: (limiter, role) => metrics.countLimiter(limiter, role),
      groupCommit: (updates) => metrics.observeGroupCommit(updates),
    };
    options.rebind(id(TOKENS.instrumentation)).toConstantValue(instrumentation);
    for (const [name, port] of STORAGE_PORTS) {
      options.onActivation(id(port), (_context, value) => metrics.timePort(value, name));
    }
    options.onActivation(id(TOKENS.limiter), (_context, limiter) => {
      if (limiter instanceof FailoverRateLimiter) metrics.watchFailover(() => limiter.status());
      return limiter;
    });
  });

/**
 * What the HTTP app gets of the metrics: every request observed, and GET /metrics unless it is served
 * apart. On the API's port, which anyone can reach, the text is rendered at most once per `maxAgeMs`
 * (a second, unless a test asks for every rendering to be fresh); the listener of its own renders on
 * every request, as only the operator's scraper reaches it.
 */
export const httpMetricsOf = (
  metrics: ServiceMetrics,
  config: Pick<Config, 'metricsPort'>,
  maxAgeMs = METRICS_MAX_AGE_MS,
): HttpMetrics =>
  config.metricsPort === undefined
    ? {
        requests: metrics.requests,
        exposition: maxAgeMs === 0 ? metrics.exposition : cachedExposition(metrics.exposition, undefined, maxAgeMs),
      }
    : { requests: metrics.requests };

/**
 * With PETSTORE_METRICS_PORT, serves GET /metrics on a listener of its own (on HOST), so that it can be
 * kept from the network the API faces; resolves to it once bound, or to undefined without the setting.
 */
export async function listenForMetrics(
  metrics: ServiceMetrics,
  config: Pick<Config, 'host' | 'metricsPort' | 'drainTimeoutMs'>,
  logger: Logger,
): Promise<RunningServer | undefined> {
  if (config.metricsPort === undefined) return undefined;
  const running = await listen(createMetricsApp(metrics.exposition, logger).callback(), {
    host: config.host,
    port: config.metricsPort,
    drainTimeoutMs: config.drainTimeoutMs,
    logger,
    setReady: () => {},
  });
  logger.info({ url: `${running.url}/metrics` }, 'metrics listening');
  return running;
}
