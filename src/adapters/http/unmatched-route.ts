import { sendError } from './error-response.js';
import type { HttpMiddleware } from './http-context.js';

/** The methods of the routes @koa/router found for the path, in a stable order for the Allow header. */
function allowedMethods(matched: readonly { readonly methods: readonly string[] }[]): string {
  const methods = new Set<string>();
  for (const layer of matched) for (const method of layer.methods) methods.add(method);
  return [...methods].sort().join(', ');
}

/**
 * Runs only when no route took the request: 405 with Allow when the path exists under another
 * method (OPTIONS included: the service has no CORS preflight to answer), otherwise 404.
 */
export const unmatchedRoute: HttpMiddleware = (ctx) => {
  const matched = ctx.matched ?? [];
  if (matched.length > 0) {
    const allow = allowedMethods(matched);
    ctx.set('Allow', allow);
    return sendError(ctx, 'method_not_allowed', `${ctx.method} is not allowed here; use ${allow}`);
  }
  sendError(ctx, 'not_found', 'no resource lives at this path; the API is under /v1');
};
