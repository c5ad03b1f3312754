import type { Logger } from 'pino';
import { createMetricsApp } from '../adapters/http/metrics-app.js';
import { cachedExposition, type HttpMetrics, METRICS_MAX_AGE_MS } from '../adapters/http/request-metrics.js';
import type { ServiceMetrics } from '../adapters/prometheus/service-metrics.js';
import type { Config } from './config.js';
import { listen, type RunningServer } from './http-server.js';
import type { Part } from './lifecycle.js';

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
 * With PETSTORE_METRICS_PORT, GET /metrics on a listener of its own (on HOST), so that it can be kept
 * from the network the API faces: a part that listens at its start and drains at its stop.
 */
export function metricsListener(
  metrics: ServiceMetrics,
  config: Pick<Config, 'host' | 'drainTimeoutMs'> & { readonly metricsPort: number },
  logger: Logger,
): Part {
  let running: RunningServer | undefined;
  return {
    name: 'metrics listener',
    start: async () => {
      running = await listen(createMetricsApp(metrics.exposition, logger).callback(), {
        host: config.host,
        port: config.metricsPort,
        drainTimeoutMs: config.drainTimeoutMs,
        logger,
        setReady: () => {},
      });
      logger.info({ url: `${running.url}/metrics` }, 'metrics listening');
    },
    stop: () => running?.drain(),
  };
}
