import type { IncomingMessage } from 'node:http';
import type { Next } from 'koa';
import bodyParser from 'koa-bodyparser';
import { fail, ok, type Result } from '../../domain/result.js';
import { JsonInputError, parseJson } from '../shared/json-reader.js';
import { sendError } from './error-response.js';
import { sendContinue } from './expect-continue.js';
import { type HttpContext, keepsHeldHeaders, type RouteMiddleware } from './http-context.js';

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
 * before the size limit applies, and no client of a one-field body needs it. Answers only through
 * sendError, so the headers held for the answer wait for the route's own (keepsHeldHeaders).
 */
export const requireJsonBody: RouteMiddleware = keepsHeldHeaders<RouteMiddleware>((ctx, next) => {
  const encoding = ctx.req.headers['content-encoding'];
  if (encoding !== undefined && encoding !== '' && encoding.toLowerCase() !== 'identity') {
    return sendError(ctx, 'unsupported_media_type', 'a compressed body is not accepted; send it as is');
  }
  // The spellings nearly every client sends are taken as they are; any other goes through type-is, whose
  // parse of the media type and its parameters stood out in a PATCH's CPU profile. `is` answers null for
  // a request without a body, which the body check refuses as missing.
  if (!PLAIN_JSON_TYPES.has(ctx.req.headers['content-type'] ?? '') && ctx.request.is('application/json') === false) {
    return sendError(ctx, 'unsupported_media_type', 'the body must be JSON, sent as Content-Type: application/json');
  }
  return next();
});

/** The requests whose body `bodyBytesOf` took whole, before the parser marked the message complete. */
const wholeBodies = new WeakSet<IncomingMessage>();

/** Whether `req`'s body was taken whole by readJsonBody: nothing of it is left for the connection to read. */
export const tookWholeBody = (req: IncomingMessage): boolean => wholeBodies.has(req);

/** What `bodyBytesOf` answers for a body past the limit. */
const TOO_LARGE = Symbol('too large');

/**
 * The text of a body's bytes, as raw-body (koa-bodyparser's reader) decodes it: UTF-8,
 * bytes that are not UTF-8 as U+FFFD (jsonBodyOf refuses them), a leading byte order mark left out.
 */
function textOf(bytes: Buffer | null): string {
  if (bytes === null) return '';
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * The body, when the whole of it has arrived and nothing has read it: the request's stream then holds
 * it already, and one read takes it with no listener, promise or decoder. `undefined` when it has not
 * all arrived. Node hands a request over once its headers are parsed, and a route reached without a
 * wait runs then, before the parser has seen the end of the message: a small body that came in the
 * headers' packet is buffered by then, so a body of the length declared is whole (the parser passes no
 * byte past Content-Length as body).
 */
function bodyBytesOf(req: IncomingMessage, limitBytes: number): Buffer | null | typeof TOO_LARGE | undefined {
  if (!req.readable || req.readableFlowing === true) return undefined;
  const length = req.headers['content-length'];
  const whole =
    req.complete ||
    (length !== undefined && req.headers['transfer-encoding'] === undefined && req.readableLength === Number(length));
  if (!whole) return undefined;
  const bytes = req.read() as Buffer | null;
  if (!req.complete) wholeBodies.add(req);
  return bytes !== null && bytes.length > limitBytes ? TOO_LARGE : bytes;
}

/** Keeps the body's text where jsonBodyOf reads it, then runs the rest; past the limit, the 413. */
function withBody(ctx: HttpContext, bytes: Buffer | null | typeof TOO_LARGE, limitBytes: number, next: Next) {
  if (bytes === TOO_LARGE) return sendError(ctx, 'payload_too_large', `the body is larger than ${limitBytes} bytes`);
  ctx.request.rawBody = textOf(bytes);
  return next();
}

/**
 * Reads a JSON body of at most `limitBytes` (past the limit: 413). It is read as text, not parsed here:
 * JSON.parse would round large numbers, so `jsonBodyOf` parses it losslessly. Runs after
 * `requireJsonBody` (so the body is not compressed), and after the guard: only now is a waiting client
 * told to send its body (100 Continue), and only when the length it declared is within the limit.
 *
 * A body that came whole with its headers (nearly every body of a few bytes) is taken in one read; one
 * still arriving is read by koa-bodyparser, as every body was before: its stream machinery (a decoder,
 * five listeners, a promise and two async frames) was about 3 KB of a PATCH's allocation, for bytes
 * that were already there.
 */
export const readJsonBody = (limitBytes: number): RouteMiddleware => {
  const readStreamed = bodyParser({
    enableTypes: ['text'],
    extendTypes: { text: ['application/json'] },
    textLimit: `${limitBytes}b`,
  });
  // Answers only through sendError (or a failure thrown to the error middleware): the held headers wait.
  return keepsHeldHeaders<RouteMiddleware>((ctx, next) => {
    // A body declared too long is refused before a waiting client is invited to send it (100 Continue).
    if (Number(ctx.req.headers['content-length']) > limitBytes) {
      return sendError(ctx, 'payload_too_large', `the body is larger than ${limitBytes} bytes`);
    }
    sendContinue(ctx.req, ctx.res);
    const bytes = bodyBytesOf(ctx.req, limitBytes);
    if (bytes !== undefined) return withBody(ctx, bytes, limitBytes, next);
    // `requireJsonBody` let only identity through, in any casing; the reader knows the lower-case
    // spelling alone and would refuse the others as an unknown encoding. Identity is no encoding at all.
    delete ctx.req.headers['content-encoding'];
    return readStreamed(ctx, next);
  });
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
