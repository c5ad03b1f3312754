import type { Logger } from 'pino';
import { KeyUseRecorder } from '../adapters/api-keys/key-use-recorder.js';
import type { AccessLogger } from '../adapters/http/access-log.js';
import { readConsoleBundle } from '../adapters/http/console-page.js';
import { consolePages } from '../adapters/http/console-routes.js';
import { createHttpApp } from '../adapters/http/create-http-app.js';
import { docsPages } from '../adapters/http/docs-routes.js';
import type { HttpMetrics } from '../adapters/http/request-metrics.js';
import type { RequestTracing } from '../adapters/http/request-tracing.js';
import type { InventoryCore } from '../application/inventory-core.js';
import type { Clock } from '../application/ports/clock.js';
import { listsColumns } from '../application/ports/inventory-repository.js';
import type { StoragePorts } from '../application/ports/storage-ports.js';
import type { Config } from './config.js';
import type { Readiness } from './http-listeners.js';
import type { Lifecycle } from './lifecycle.js';

export type HttpApp = ReturnType<typeof createHttpApp>;

/** What the HTTP app is made with, beyond the core. */
export interface HttpAppDeps {
  readonly lifecycle: Lifecycle;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly ports: StoragePorts;
  readonly readiness: Readiness;
  readonly metrics?: HttpMetrics | undefined;
  readonly accessLogger?: AccessLogger | undefined;
  readonly tracing?: RequestTracing | undefined;
}

/**
 * The Koa app over the core. /readyz is ready only while `readiness.ready` holds and the check of every
 * critical part of the lifecycle passes; it reports every part's check (the store; Redis, when used),
 * critical or not. With `metrics`, every request is measured, and GET /metrics served unless they have a
 * listener of their own. With `tracing`, each request's span is named by its route template and carries
 * its key id. The recorder of keys' last uses is a part: its timer runs from the lifecycle's start, and
 * what is left is written at its stop, before the store closes.
 */
export function makeHttpApp(core: InventoryCore, config: Config, deps: HttpAppDeps): HttpApp {
  const { lifecycle, logger, clock, ports, readiness, metrics, accessLogger, tracing } = deps;
  const keyUses = new KeyUseRecorder(ports.keys, clock, {
    onError: (err) => logger.warn({ err }, 'recording the last use of keys failed; retried at the next batch'),
  });
  lifecycle.register({ name: 'key uses', start: () => keyUses.start(), stop: () => keyUses.close() });
  return createHttpApp({
    ...core,
    clock,
    logger,
    keyUses,
    inventoryColumns: listsColumns(ports.inventory) ? ports.inventory : undefined,
    // The API reference page and the stock console are the server's, not the Koa adapter's.
    pages: [docsPages, consolePages(readConsoleBundle())],
    readiness: () => readiness.ready && lifecycle.healthChecks().every((c) => !c.critical || c.healthy()),
    healthChecks: () => Object.fromEntries(lifecycle.healthChecks().map((c) => [c.name, c.healthy()])),
    ...(metrics === undefined ? {} : { metrics }),
    ...(accessLogger === undefined ? {} : { accessLogger }),
    ...(tracing === undefined ? {} : { tracing }),
    options: {
      sunsetAt: config.sunsetAt,
      deprecatedAt: config.deprecatedAt,
      servers: config.servers,
      trustProxy: config.trustProxy,
      requireIfMatch: config.requireIfMatch,
      holdLimits: config.holdLimits,
    },
  });
}
