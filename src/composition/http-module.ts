import { ContainerModule } from 'inversify';
import type { AccessLogger } from '../adapters/http/access-log.js';
import { readConsoleBundle } from '../adapters/http/console-page.js';
import { consolePages } from '../adapters/http/console-routes.js';
import { createHttpApp } from '../adapters/http/create-http-app.js';
import { docsPages } from '../adapters/http/docs-routes.js';
import type { HttpMetrics } from '../adapters/http/request-metrics.js';
import type { RequestTracing } from '../adapters/http/request-tracing.js';
import { KeyUseRecorder } from '../adapters/shared/key-use-recorder.js';
import { listsColumns } from '../application/ports/inventory-repository.js';
import type { Config } from './config.js';
import { bindPart, LIFECYCLE } from './lifecycle.js';
import { bindResolved, TOKENS, token } from './tokens.js';

export type HttpApp = ReturnType<typeof createHttpApp>;

export const HTTP_APP = token<HttpApp>('HttpApp');

const KEY_USES = token<KeyUseRecorder>('KeyUseRecorder');

/** Whether the process takes traffic: false while starting and draining. */
export interface Readiness {
  ready: boolean;
}

/**
 * The Koa app over the core. /readyz is ready only while `readiness.ready` holds and the check of every
 * critical part of the lifecycle passes; it reports every part's check (the store; Redis, when used),
 * critical or not. The recorder of keys' last uses is a part: its timer runs from the lifecycle's start. With `metrics`, every
 * request is measured, and GET /metrics served unless they have a listener of their own. With `tracing`,
 * each request's span is named by its route template and carries its key id.
 */
export const httpModule = (
  config: Config,
  readiness: Readiness,
  metrics?: HttpMetrics,
  accessLogger?: AccessLogger,
  tracing?: RequestTracing,
) =>
  new ContainerModule((options) => {
    // Last uses are written every few seconds off the request path; what is left is written at the
    // stop, before the store closes (the recorder is made from the store, so it stops first).
    bindPart(
      options,
      KEY_USES,
      [TOKENS.keys, TOKENS.clock, TOKENS.logger],
      (keys, clock, logger) =>
        new KeyUseRecorder(keys, clock, {
          onError: (err) => logger.warn({ err }, 'recording the last use of keys failed; retried at the next batch'),
        }),
      (recorder) => ({ name: 'key uses', start: () => recorder.start(), stop: () => recorder.close() }),
    );
    bindResolved(
      options,
      HTTP_APP,
      [TOKENS.core, TOKENS.clock, TOKENS.logger, TOKENS.inventory, LIFECYCLE, KEY_USES],
      (core, clock, logger, inventory, lifecycle, keyUses) =>
        createHttpApp({
          ...core,
          clock,
          logger,
          keyUses,
          inventoryColumns: listsColumns(inventory) ? inventory : undefined,
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
        }),
    );
  });
