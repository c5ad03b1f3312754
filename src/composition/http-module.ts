import { ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import { createHttpApp } from '../adapters/http/create-http-app.js';
import { inventoryJsonSourceOf } from '../adapters/http/inventory-json-source.js';
import type { HttpMetrics } from '../adapters/http/request-metrics.js';
import type { Config } from './config.js';
import { bindResolved, HEALTH_CHECKS, TOKENS, token } from './tokens.js';

export type HttpApp = ReturnType<typeof createHttpApp>;

export const HTTP_APP = token<HttpApp>('HttpApp');

/** Whether the process takes traffic: false while starting and draining. */
export interface Readiness {
  ready: boolean;
}

/**
 * The Koa app over the core. /readyz is ready only while `readiness.ready` holds and every critical
 * health check passes; it reports every check (Redis, when used), critical or not. With `metrics`, every
 * request is measured, and GET /metrics served unless they have a listener of their own.
 */
export const httpModule = (config: Config, readiness: Readiness, metrics?: HttpMetrics, accessLogger?: Logger) =>
  new ContainerModule((options) => {
    bindResolved(
      options,
      HTTP_APP,
      [TOKENS.core, TOKENS.clock, TOKENS.logger, TOKENS.inventory, HEALTH_CHECKS],
      (core, clock, logger, inventory, checks) =>
        createHttpApp({
          ...core,
          clock,
          logger,
          inventoryJson: inventoryJsonSourceOf(inventory),
          readiness: () => readiness.ready && checks.every((c) => !c.critical || c.healthy()),
          healthChecks: () => Object.fromEntries(checks.map((c) => [c.name, c.healthy()])),
          ...(metrics === undefined ? {} : { metrics }),
          ...(accessLogger === undefined ? {} : { accessLogger }),
          options: {
            sunsetAt: config.sunsetAt,
            deprecatedAt: config.deprecatedAt,
            servers: config.servers,
            trustProxy: config.trustProxy,
            requireIfMatch: config.requireIfMatch,
          },
        }),
    );
  });
