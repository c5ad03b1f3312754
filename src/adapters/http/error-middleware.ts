import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import { sendError, thrownProblemOf } from './error-response.js';
import { type HttpContext, type HttpMiddleware, releaseHeldHeaders } from './http-context.js';
import { tookWholeBody } from './json-body.js';
import { requestIdOf } from './request-id.js';

/**
 * Whether the request declared a body that has not arrived whole (nobody read it, or a refusal cut it).
 * A body taken whole in one read (json-body's) counts as read though the parser may not have marked the
 * message complete yet: an answer decided within the same turn (a store in memory) comes before that.
 */
const bodyLeftUnread = (req: IncomingMessage): boolean =>
  !req.complete &&
  !tookWholeBody(req) &&
  (req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0');

/**
 * Closes the connection of an answer given before the request's body was read. Keeping it would make
 * Node read and discard whatever the client still sends (100 GB, for all it knows) before the next
 * request could start. Closing it once the answer is written costs the client a new connection; the
 * refused body costs nothing more.
 */
function closeIfBodyUnread(ctx: HttpContext): void {
  releaseHeldHeaders(ctx);
  if (!ctx.res.headersSent && bodyLeftUnread(ctx.req)) ctx.res.setHeader('Connection', 'close');
}

/**
 * The middleware just inside the access log: it stamps the request id and turns every failure thrown
 * below it into the Error body (a failure of the service becomes a 500 that shows no detail, only the
 * request id, while the detail goes to the log). An answer given before the request's body was read
 * closes the connection.
 *
 * Not async: the rest of the chain's promise gets one reaction for each outcome, with the same effects
 * in the same turns as `try { await next() } catch` had, without an async function's frame and promise
 * a request.
 */
export function errorMiddleware(logger: Logger): HttpMiddleware {
  const answerFailure = (ctx: HttpContext, error: unknown): void => {
    const problem = thrownProblemOf(error);
    if (problem === undefined) {
      const requestId = ctx.state.requestId;
      logger.error({ err: error, requestId }, 'request failed');
      sendError(ctx, 'internal_error', `the service failed to answer; quote request id ${requestId}`);
    } else {
      sendError(ctx, problem.code, problem.message);
    }
    closeIfBodyUnread(ctx);
  };
  return (ctx, next) => {
    const requestId = requestIdOf(ctx.req.headers['x-request-id']);
    ctx.state.requestId = requestId;
    ctx.state.keyId = undefined;
    // The first of the headers held for the answer (see holdHeader).
    ctx.state.heldHeaders = ['X-Request-Id', requestId];
    let rest: Promise<unknown>;
    try {
      rest = Promise.resolve(next());
    } catch (error) {
      // A next that throws instead of rejecting (koa-compose's never does) is answered at once, as the
      // await's catch answered it.
      answerFailure(ctx, error);
      return Promise.resolve();
    }
    return rest.then(
      () => closeIfBodyUnread(ctx),
      (error: unknown) => answerFailure(ctx, error),
    );
  };
}
