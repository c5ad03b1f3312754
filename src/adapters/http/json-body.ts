import bodyParser from 'koa-bodyparser';
import { fail, ok, type Result } from '../../domain/result.js';
import { JsonInputError, parseJson } from '../shared/json-reader.js';
import { sendError } from './error-response.js';
import { sendContinue } from './expect-continue.js';
import type { HttpContext, RouteMiddleware } from './http-context.js';

/** The largest body the service reads, unless configured otherwise: 16 KiB. */
export const DEFAULT_BODY_LIMIT_BYTES = 16 * 1024;

/** Content-Type values that are JSON as they stand (type-is accepts each of them). */
const PLAIN_JSON_TYPES: ReadonlySet<string> = new Set([
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=utf-8',
  'application/json; charset=UTF-8',
  'application/json;charset=UTF-8',
]);

/**
 * Refuses with 415 a body that is not JSON, or is compressed: an encoded body would be inflated
 * before the size limit applies, and no client of a one-field body needs it.
 */
export const requireJsonBody: RouteMiddleware = (ctx, next) => {
  const encoding = ctx.get('Content-Encoding');
  if (encoding !== '' && encoding.toLowerCase() !== 'identity') {
    return sendError(ctx, 'unsupported_media_type', 'a compressed body is not accepted; send it as is');
  }
  // The spellings nearly every client sends are taken as they are; any other goes through type-is, whose
  // parse of the media type and its parameters stood out in a PATCH's CPU profile. `is` answers null for
  // a request without a body, which the body check refuses as missing.
  if (!PLAIN_JSON_TYPES.has(ctx.req.headers['content-type'] ?? '') && ctx.request.is('application/json') === false) {
    return sendError(ctx, 'unsupported_media_type', 'the body must be JSON, sent as Content-Type: application/json');
  }
  return next();
};

/**
 * Reads a JSON body of at most `limitBytes` with koa-bodyparser (past the limit: 413). It is read as
 * text, not parsed there: JSON.parse would round large numbers, so `jsonBodyOf` parses it losslessly.
 * Runs after `requireJsonBody`, and after the guard: only now is a waiting client told to send its body
 * (100 Continue), and only when the length it declared is within the limit.
 */
export const readJsonBody = (limitBytes: number): RouteMiddleware => {
  const read = bodyParser({
    enableTypes: ['text'],
    extendTypes: { text: ['application/json'] },
    textLimit: `${limitBytes}b`,
  });
  return (ctx, next) => {
    // `requireJsonBody` let only identity through, in any casing; the reader below knows the lower-case
    // spelling alone and would refuse the others as an unknown encoding. Identity is no encoding at all.
    delete ctx.req.headers['content-encoding'];
    // A body declared too long is refused before a waiting client is invited to send it (100 Continue).
    if (Number(ctx.req.headers['content-length']) > limitBytes) {
      return sendError(ctx, 'payload_too_large', `the body is larger than ${limitBytes} bytes`);
    }
    sendContinue(ctx.req, ctx.res);
    return read(ctx, next);
  };
};

/**
 * The body read by `readJsonBody`, parsed with every number kept as its literal text; or the message of
 * a 400 `invalid_body` for an empty body, bytes that are not UTF-8, or text that is not JSON (duplicate keys included), however
 * deeply it nests: the shared parser is iterative and bounds the depth, where a recursive one would
 * overflow the stack on 5,000 `[` and answer 500.
 */
export function jsonBodyOf(ctx: HttpContext): Result<unknown, string> {
  const text = ctx.request.rawBody;
  if (typeof text !== 'string' || text.trim() === '') return fail('the body is empty; send a JSON object');
  // The reader decodes bytes that are not UTF-8 as U+FFFD: two different bodies would read alike (and
  // share an idempotency fingerprint), and a reason would keep characters the client never sent.
  if (text.includes('\uFFFD')) return fail('the body is not valid UTF-8 (send U+FFFD itself escaped, as \\ufffd)');
  try {
    return ok(parseJson(text));
  } catch (error) {
    if (error instanceof JsonInputError) return fail(`the body is not valid JSON: ${error.message}`);
    throw error;
  }
}
