import { Container } from 'inversify';
import type { Logger } from 'pino';
import type { RequestLineWriter } from '../adapters/http/request-line-writer.js';
import type { HttpMetrics } from '../adapters/http/request-metrics.js';
import { koaListener } from '../adapters/http/server/koa-listener.js';
import type { ServiceMetrics } from '../adapters/prometheus/service-metrics.js';
import { NodeKeyCrypto } from '../adapters/system/node-key-crypto.js';
import { NodeWebhookSecrets } from '../adapters/system/node-webhook-secrets.js';
import { systemClock } from '../adapters/system/system-clock.js';
import { webhookUrlCheck } from '../adapters/webhooks/webhook-url-policy.js';
import { createInventoryCore } from '../application/inventory-core.js';
import { createWebhookAdmin } from '../application/webhook-core.js';
import { banPolicy } from '../domain/ban.js';
import type { Config } from './config.js';
import { eventDispatch } from './event-dispatch.js';
import { makeHttpApp } from './http-app.js';
import { httpListener, metricsListener, type Readiness } from './http-listeners.js';
import { instrumentationOf } from './instrumentation.js';
import { Lifecycle, type Part } from './lifecycle.js';
import { makeLimiter } from './limiters.js';
import { outcomePurge } from './outcome-purge.js';
import { openStore, type StoreChoice } from './stores.js';
import type { TracingParts } from './tracing.js';

/**
 * How long past the drain's own bound a part's stop may take before it is given up (see Lifecycle): the
 * HTTP listener's stop takes up to PETSTORE_DRAIN_TIMEOUT_MS, a webhook attempt under way 10 s.
 */
const STOP_MARGIN_MS = 5_000;

/** The lifecycle a composition's parts register with: one per service. */
export const serviceLifecycle = (config: Pick<Config, 'drainTimeoutMs'>): Lifecycle =>
  new Lifecycle({ stopTimeoutMs: config.drainTimeoutMs + STOP_MARGIN_MS });

/** What the container holds of a composed service, for its callers: `container.get<T>(PART.x)`. */
export const PART = {
  clock: Symbol('Clock'),
  core: Symbol('InventoryCore'),
  webhookAdmin: Symbol('WebhookAdmin'),
  storageIsEmpty: Symbol('StorageIsEmpty'),
  httpApp: Symbol('HttpApp'),
  httpListener: Symbol('HttpListener'),
} as const;

/** How far a composition goes: the core alone (an admin command), the HTTP app too, or all that serves. */
export type Reach =
  | { readonly to: 'core' }
  | { readonly to: 'app'; readonly http: HttpChoice }
  | { readonly to: 'serve'; readonly http: HttpChoice; readonly accessLogger: RequestLineWriter };

/** What the HTTP app is given beyond the core. */
export interface HttpChoice {
  readonly readiness: Readiness;
  /** Every request measured, and GET /metrics unless it has a listener of its own; none when absent. */
  readonly metrics?: HttpMetrics | undefined;
}

/** Which adapters a composition uses, and how far it goes. */
export interface Composition {
  readonly config: Config;
  /** What every part registers its stop with (see serviceLifecycle); the caller stops it, a failed composition too. */
  readonly lifecycle: Lifecycle;
  readonly logger: Logger;
  readonly storage: StoreChoice;
  /** The configured limiter (Redis, or kept across restarts in SQLite's file when serving), or in process alone. */
  readonly limiter: 'configured' | 'in-process';
  /** Metrics to time the storage ports and count the limiters' decisions with; none when absent. */
  readonly metrics?: ServiceMetrics | undefined;
  /** Spans around the ports and the limiter, and each request's name; none when absent. */
  readonly tracing?: TracingParts | undefined;
  readonly reach: Reach;
}

/**
 * The service's parts, in the order they start: storage, instrumentation, limiter, core, HTTP,
 * background work, and the API's listener last. Each part registers its stop with the lifecycle where it
 * is made, so the lifecycle stops them in the reverse of this order: the listener drains first, the
 * store closes last. Nothing is started here (see Lifecycle.start); what opens as it is made (a store,
 * Redis's client) is open: when the composition fails, the caller stops the lifecycle.
 */
export async function composeService(composition: Composition): Promise<Container> {
  const { config, lifecycle, logger, metrics, tracing, reach } = composition;
  const container = new Container();
  const clock = systemClock;
  container.bind(PART.clock).toConstantValue(clock);
  // Storage: opened (and migrated) first, closed last.
  const store = await openStore(config, composition.storage, {
    lifecycle,
    logger,
    clock,
    onGroupCommit: (store, writes) => metrics?.observeGroupCommit(store, writes),
  });
  container.bind(PART.storageIsEmpty).toConstantValue(() => store.isEmpty());

  // Instrumentation: what the core is given is the store's ports, timed when metrics are on and a span
  // a call when tracing runs. Tracing's stop exports the spans still buffered.
  if (tracing !== undefined) lifecycle.register(tracingPart(tracing, logger));
  const instrumentation = instrumentationOf(metrics, tracing?.ports);
  const ports = instrumentation.storagePorts(store.ports);

  // Limiter: Redis's client, or the in-process limiter, saved to SQLite's file at the stop when serving.
  const ban = banPolicy({ ...config.ban, escalationWindowMs: 86_400_000 });
  const snapshot = reach.to === 'serve' ? store.limiterSnapshot : undefined;
  const limiter = await makeLimiter(config, composition.limiter, snapshot, {
    lifecycle,
    logger,
    clock,
    banPolicy: ban,
    instrumentation,
  });

  // Core: every use case, and the webhook admin's. It holds nothing open, so it registers no stop; it
  // comes after the limiter, as it is made from it.
  const crypto = new NodeKeyCrypto();
  const core = createInventoryCore(
    { ...ports, limiter, clock, keyGenerator: crypto, keyHasher: crypto },
    { idempotencyTtlMs: config.idempotencyTtlMs, holdLimits: config.holdLimits },
  );
  container.bind(PART.core).toConstantValue(core);
  container.bind(PART.webhookAdmin).toConstantValue(
    createWebhookAdmin({
      webhooks: ports.webhooks,
      clock,
      secrets: new NodeWebhookSecrets(),
      checkUrl: webhookUrlCheck(config.webhooks.allowPrivate),
    }),
  );
  if (reach.to === 'core') return container;

  // HTTP: the Koa app, and the recorder of keys' last uses.
  const app = makeHttpApp(core, config, {
    lifecycle,
    logger,
    clock,
    ports,
    readiness: reach.http.readiness,
    metrics: reach.http.metrics,
    accessLogger: reach.to === 'serve' ? reach.accessLogger : undefined,
    tracing: tracing?.requests,
  });
  container.bind(PART.httpApp).toConstantValue(app);
  if (reach.to === 'app') return container;

  // Background work: the outcome purge, the webhooks' dispatch, the metrics' own listener.
  lifecycle.register(outcomePurge(core, logger));
  lifecycle.register(
    eventDispatch(
      {
        webhooks: ports.webhooks,
        clock,
        logger,
        ...(metrics === undefined
          ? {}
          : {
              onAttempt: metrics.watchEvents(
                () => ports.webhooks.stats(),
                () => clock.nowMs(),
              ),
            }),
      },
      config,
    ),
  );
  const { metricsPort } = config;
  if (metrics !== undefined && metricsPort !== undefined) {
    lifecycle.register(metricsListener(metrics, { ...config, metricsPort }, logger));
  }

  // The API's listener, last: a request is accepted once everything else runs, and the listener
  // drains first at the stop. The request lines' writer is flushed right after the drain, before the
  // line that says the service stopped.
  const { accessLogger } = reach;
  lifecycle.register({ name: 'access log', stop: () => accessLogger.flush() });
  const listener = httpListener(koaListener(app), config, reach.http.readiness, logger);
  lifecycle.register(listener);
  container.bind(PART.httpListener).toConstantValue(listener);
  return container;
}

/** Tracing's part: its stop exports the spans still buffered, and stops the SDK. */
function tracingPart(tracing: TracingParts, logger: Logger): Part {
  return {
    name: 'tracing',
    // Traces are best effort (spans are dropped, never requests slowed): a collector that is down at
    // the stop loses the last spans, and the stop is still clean.
    stop: () =>
      tracing.ports.shutdown().catch((err: unknown) => logger.warn({ err }, 'the last spans could not be exported')),
  };
}
