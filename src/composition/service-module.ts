import { type Container, ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import type { RequestLineWriter } from '../adapters/http/request-line-writer.js';
import type { ServiceMetrics } from '../adapters/prometheus/service-metrics.js';
import type { InventoryCore } from '../application/inventory-core.js';
import type { Config } from './config.js';
import { resolve } from './container.js';
import { eventDispatch } from './event-dispatch.js';
import { HTTP_APP, type HttpApp, type Readiness } from './http-module.js';
import { listen, type RunningServer } from './http-server.js';
import { bindPart, type Part } from './lifecycle.js';
import { metricsListener } from './metrics-module.js';
import { outcomePurge } from './outcome-purge.js';
import { bindResolved, id, TOKENS, token } from './tokens.js';

/** The API's listener: a part that listens at its start and drains at its stop. */
export interface HttpListener extends Part {
  /** `http://host:port`, the port picked when PORT=0; known once started. */
  readonly url: string;
}

const HTTP_LISTENER = token<HttpListener>('HttpListener');
const ACCESS_LOG = token<RequestLineWriter>('RequestLineWriter');

/**
 * What the service runs once it is made: one binding each, in the order they start (they stop in the
 * reverse order, before the parts they are made from).
 */
const RUNS = token<Part>('Runs');

/**
 * The parts of the served process beyond the container's: the outcome purge, the webhooks' dispatch,
 * the metrics' own listener (with PETSTORE_METRICS_PORT), and the API's listener last, so that a request
 * is accepted only once everything else runs and the listener drains first at the stop. The request
 * lines' writer is flushed right after the drain, before the line that says the service stopped.
 */
export const serviceModule = (
  config: Config,
  readiness: Readiness,
  metrics: ServiceMetrics | undefined,
  accessLogger: RequestLineWriter,
) =>
  new ContainerModule((options) => {
    bindPart(
      options,
      RUNS,
      [TOKENS.core, TOKENS.logger],
      (core, logger) => outcomePurge(core, logger),
      (part) => part,
    );
    bindPart(
      options,
      RUNS,
      [TOKENS.webhooks, TOKENS.clock, TOKENS.logger],
      (webhooks, clock, logger) =>
        eventDispatch(
          {
            webhooks,
            clock,
            logger,
            ...(metrics === undefined
              ? {}
              : {
                  onAttempt: metrics.watchEvents(
                    () => webhooks.stats(),
                    () => clock.nowMs(),
                  ),
                }),
          },
          config,
        ),
      (part) => part,
    );
    const { metricsPort } = config;
    if (metrics !== undefined && metricsPort !== undefined) {
      bindPart(
        options,
        RUNS,
        [TOKENS.logger],
        (logger) => metricsListener(metrics, { ...config, metricsPort }, logger),
        (part) => part,
      );
    }
    bindPart(
      options,
      ACCESS_LOG,
      [],
      () => accessLogger,
      (writer) => ({ name: 'access log', stop: () => writer.flush() }),
    );
    bindPart(
      options,
      HTTP_LISTENER,
      [HTTP_APP, TOKENS.logger, ACCESS_LOG],
      (app, logger) => httpListener(app, config, readiness, logger),
      (part) => part,
    );
    bindResolved(options, RUNS, [HTTP_LISTENER], (listener) => listener);
  });

/**
 * Makes everything the service runs (see serviceModule), opening what it is made from: the store (its
 * migration), Redis's client. Each part registers with the lifecycle as it is made; none is started.
 */
export async function makeService(container: Container): Promise<{ core: InventoryCore; listener: HttpListener }> {
  await container.getAllAsync(id(RUNS));
  return { core: resolve(container, TOKENS.core), listener: resolve(container, HTTP_LISTENER) };
}

function httpListener(app: HttpApp, config: Config, readiness: Readiness, logger: Logger): HttpListener {
  let running: RunningServer | undefined;
  return {
    name: 'http listener',
    get url() {
      if (running === undefined) throw new Error('the HTTP listener has not started');
      return running.url;
    },
    start: async () => {
      running = await listen(app.callback(), {
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
