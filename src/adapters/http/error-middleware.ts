import type { Logger } from 'pino';
import { sendError, thrownProblemOf } from './error-response.js';
import type { HttpMiddleware } from './http-context.js';
import { requestIdOf } from './request-id.js';

/**
 * The middleware just inside the access log: it stamps the request id and turns every failure thrown
 * below it into the Error body (a failure of the service becomes a 500 that shows no detail, only the
 * request id, while the detail goes to the log).
 */
export function errorMiddleware(logger: Logger): HttpMiddleware {
  return async (ctx, next) => {
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
  };
}
