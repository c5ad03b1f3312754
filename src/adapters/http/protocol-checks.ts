import type { IncomingMessage } from 'node:http';
import { sendError } from './error-response.js';
import type { HttpMiddleware } from './http-context.js';

/**
 * How many field lines named `lowerCaseName` the request carried. Node keeps only the first of some
 * repeated headers (Host, Authorization) in `req.headers`, so a repetition shows only in the raw list.
 */
export function fieldLineCount(req: IncomingMessage, lowerCaseName: string): number {
  const raw = req.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === lowerCaseName.length && name.toLowerCase() === lowerCaseName) count += 1;
  }
  return count;
}

const CONTINUE = /^100-continue$/i;

/**
 * Refuses the requests RFC 9110 and RFC 9112 say a server must refuse, with the same Error body and
 * X-Request-Id as every other answer (the server leaves them to the app, see `deferContinue` and
 * `requireHostHeader: false`): an HTTP/1.1 request without Host, or with more than one (400), and an
 * expectation other than 100-continue (417). Runs before the guard: these are malformed messages, like
 * the ones Node's parser refuses, not requests to the API.
 */
export const protocolChecks: HttpMiddleware = (ctx, next) => {
  // One pass over the raw headers counts both Host and Authorization: the guard reads the latter's
  // count from the state rather than scanning them again.
  const raw = ctx.req.rawHeaders;
  let hosts = 0;
  let authorizations = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 4) {
      if (name.toLowerCase() === 'host') hosts += 1;
    } else if (name.length === 13 && name.toLowerCase() === 'authorization') authorizations += 1;
  }
  ctx.state.authorizationLines = authorizations;
  if (hosts > 1) return sendError(ctx, 'bad_request', 'the request carries more than one Host header');
  if (hosts === 0 && ctx.req.httpVersion === '1.1') {
    return sendError(ctx, 'bad_request', 'an HTTP/1.1 request must carry a Host header');
  }
  const expectation = ctx.req.headers.expect?.trim();
  if (expectation !== undefined && expectation !== '' && !CONTINUE.test(expectation)) {
    return sendError(ctx, 'expectation_failed', 'the only expectation the service meets is 100-continue');
  }
  return next();
};
