import type Router from '@koa/router';
import { OPEN_API_PATHS } from './api-guard.js';
import { sendError } from './error-response.js';
import { type HttpState, type RoutedContext, sendJson } from './http-context.js';

const LIVE = '{"status":"live"}';
const READY = '{"status":"ready"}';

const checksJson = (checks: Readonly<Record<string, boolean>>): string =>
  Object.entries(checks)
    .map(([name, up]) => `${JSON.stringify(name)}:"${up ? 'up' : 'down'}"`)
    .join(',');

/**
 * The probes (outside /v1, no key, no limit) and the OpenAPI document. /livez answers while the process
 * can serve at all; /readyz only while it should be sent traffic: not while starting or draining.
 */
export function addServiceRoutes(
  router: Router<HttpState, RoutedContext>,
  readiness: () => boolean,
  healthChecks: () => Readonly<Record<string, boolean>>,
  openApiJson: string,
): void {
  router.get('/livez', (ctx) => sendJson(ctx, LIVE));
  // Every check is reported, up or down; only the ones readiness depends on can make it 503 (a Redis
  // outage in fail-open mode is reported but keeps the process serving).
  router.get('/readyz', (ctx) => {
    const checks = healthChecks();
    if (readiness()) {
      return sendJson(
        ctx,
        Object.keys(checks).length === 0 ? READY : `{"status":"ready","checks":{${checksJson(checks)}}}`,
      );
    }
    const down = Object.keys(checks).filter((name) => !checks[name]);
    const why = down.length > 0 ? `${down.join(', ')} down` : 'the service is starting or draining';
    sendError(ctx, 'unavailable', `not ready (${why}); send traffic elsewhere`);
  });
  for (const path of OPEN_API_PATHS) router.get(path, (ctx) => sendJson(ctx, openApiJson));
}
