import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
import { createMetricsApp } from '../adapters/http/metrics-app.js';
import { cachedExposition, type HttpMetrics, METRICS_MAX_AGE_MS } from '../adapters/http/request-metrics.js';
import { listen, type RunningServer } from '../adapters/http/server/http-server.js';
import type { ServiceMetrics } from '../adapters/prometheus/service-metrics.js';
import type { Config } from './config.js';
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

/** Whether the process takes traffic: false while starting and draining. */
export interface Readiness {
  ready: boolean;
}

/** The API's listener: a part that listens at its start and drains at its stop. */
export interface HttpListener extends Part {
  /** `http://host:port`, the port picked when PORT=0; known once started. */
  readonly url: string;
}

/** The API's listener of `app`, on HOST:PORT with the configured connection limits; ready once it listens. */
export function httpListener(app: RequestListener, config: Config, readiness: Readiness, logger: Logger): HttpListener {
  let running: RunningServer | undefined;
  return {
    name: 'http listener',
    get url() {
      if (running === undefined) throw new Error('the HTTP listener has not started');
      return running.url;
    },
    start: async () => {
      running = await listen(app, {
        host: config.host,
        port: config.port,
        drainTimeoutMs: config.drainTimeoutMs,
        limits: config.connectionLimits,
        logger,
        setReady: (ready) => {
          readiness.ready = ready;
        },
      });
      readiness.ready = true;
    },
    stop: () => running?.drain(),
  };
}
