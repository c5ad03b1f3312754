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
import { bindResolved, type Closeable, HEALTH_CHECKS, TOKENS, token } from './tokens.js';

export type HttpApp = ReturnType<typeof createHttpApp>;

export const HTTP_APP = token<HttpApp>('HttpApp');

const KEY_USES = token<KeyUseRecorder>('KeyUseRecorder');

/** Whether the process takes traffic: false while starting and draining. */
export interface Readiness {
  ready: boolean;
}

/**
 * The Koa app over the core. /readyz is ready only while `readiness.ready` holds and every critical
 * health check passes; it reports every check (Redis, when used), critical or not. With `metrics`, every
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
    // Last uses are written every few seconds off the request path; what is left is written at shutdown,
    // before the store closes (closeables close in the reverse order of binding).
    bindResolved(options, KEY_USES, [TOKENS.keys, TOKENS.clock, TOKENS.logger], (keys, clock, logger) => {
      const recorder = new KeyUseRecorder(keys, clock, {
        onError: (err) => logger.warn({ err }, 'recording the last use of keys failed; retried at the next batch'),
      });
      recorder.start();
      return recorder;
    });
    bindResolved(
      options,
      TOKENS.closeables,
      [KEY_USES],
      (recorder): Closeable => ({
        name: 'key-uses',
        close: () => recorder.close(),
      }),
    );
    bindResolved(
      options,
      HTTP_APP,
      [TOKENS.core, TOKENS.clock, TOKENS.logger, TOKENS.inventory, HEALTH_CHECKS, KEY_USES],
      (core, clock, logger, inventory, checks, keyUses) =>
        createHttpApp({
          ...core,
          clock,
          logger,
          keyUses,
          inventoryColumns: listsColumns(inventory) ? inventory : undefined,
          // The API reference page and the stock console are the server's, not the Koa adapter's.
          pages: [docsPages, consolePages(readConsoleBundle())],
          readiness: () => readiness.ready && checks.every((c) => !c.critical || c.healthy()),
          healthChecks: () => Object.fromEntries(checks.map((c) => [c.name, c.healthy()])),
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
