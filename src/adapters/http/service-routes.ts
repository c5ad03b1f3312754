import type Router from '@koa/router';
import { OPEN_API_PATHS } from './api-guard.js';
import { sendError } from './error-response.js';
import { type HttpState, type RoutedContext, sendJson } from './http-context.js';

const LIVE = '{"status":"live"}';
const READY = '{"status":"ready"}';

/**
 * The probes (outside /v1, no key, no limit) and the OpenAPI document. /livez answers while the process
 * can serve at all; /readyz only while it should be sent traffic: not while starting or draining.
 */
export function addServiceRoutes(
  router: Router<HttpState, RoutedContext>,
  readiness: () => boolean,
  openApiJson: string,
): void {
  router.get('/livez', (ctx) => sendJson(ctx, LIVE));
  router.get('/readyz', (ctx) => {
    if (readiness()) return sendJson(ctx, READY);
    sendError(ctx, 'unavailable', 'the service is starting or draining; send traffic elsewhere');
  });
  for (const path of OPEN_API_PATHS) router.get(path, (ctx) => sendJson(ctx, openApiJson));
}
