import type { Logger } from 'pino';
import { sendError, thrownProblemOf } from './error-response.js';
import type { HttpContext, HttpMiddleware } from './http-context.js';
import { requestIdOf } from './request-id.js';

function logRequest(logger: Logger, ctx: HttpContext, startedAt: number): void {
  // A logger above info (silent in tests and embedding) costs no line object per request.
  if (!logger.isLevelEnabled('info')) return;
  const route = ctx._matchedRoute;
  logger.info(
    {
      requestId: ctx.state.requestId,
      method: ctx.method,
      // The route template, so that ids do not scatter one route over many log keys; the raw path only
      // when no route matched.
      route: typeof route === 'string' ? route : ctx.path,
      status: ctx.status,
      ms: Math.round((performance.now() - startedAt) * 100) / 100,
      keyId: ctx.state.keyId ?? null,
    },
    'request',
  );
}

/**
 * The outermost middleware, registered first: it stamps the request id, turns every failure thrown
 * below it into the Error body (a failure of the service becomes a 500 that shows no detail, only the
 * request id, while the detail goes to the log) and writes the one log line of the request, since it
 * alone sees the final status. Headers, key and body are never logged.
 */
export function errorMiddleware(logger: Logger): HttpMiddleware {
  return async (ctx, next) => {
    const startedAt = performance.now();
    const requestId = requestIdOf(ctx.req.headers['x-request-id']);
    ctx.state.requestId = requestId;
    ctx.state.keyId = undefined;
    ctx.res.setHeader('X-Request-Id', requestId);
    try {
      await next();
    } catch (error) {
      const problem = thrownProblemOf(error);
      if (problem === undefined) {
        logger.error({ err: error, requestId }, 'request failed');
        sendError(ctx, 'internal_error', `the service failed to answer; quote request id ${requestId}`);
      } else {
        sendError(ctx, problem.code, problem.message);
      }
    }
    logRequest(logger, ctx, startedAt);
  };
}
