import type { Level } from 'pino';
import { API_BASE_PATH } from './api-guard.js';
import type { HttpContext, HttpMiddleware } from './http-context.js';

/** The longest path an access log line carries, in characters, with its cut marked by `…`. */
export const LOGGED_PATH_MAX = 200;

// Percent-encoded unreserved characters mean the characters themselves (RFC 3986, 6.2.2.2), so a key
// spelled as %70sk_... is still found by the redaction below.
const ENCODED_WORD_CHARACTER = /%(?:3[0-9]|[46][1-9a-f]|[57][0-9a]|5f)/gi;
const API_KEY = /psk_[A-Za-z0-9]*/gi;
// A key's body sent without its prefix: 40 base62 characters in a row (no route has such a segment).
const BARE_KEY_BODY = /[A-Za-z0-9]{40,}/g;

const decodeWordCharacter = (encoded: string): string => String.fromCharCode(Number.parseInt(encoded.slice(1), 16));

/**
 * A path that no route took, made safe for the log: cut to {@link LOGGED_PATH_MAX} characters and with
 * every `psk_` token and every run of 40 or more letters and digits (a key without its prefix) replaced,
 * so neither a client's 16 KB of junk nor a key sent in the path ends up in it.
 */
export function loggablePath(path: string): string {
  // Cut before decoding and redacting, so the work is bounded too; the extra margin leaves room for a
  // key spelled out in escapes to be seen whole before the final cut.
  const head = path.length > LOGGED_PATH_MAX * 4 ? path.slice(0, LOGGED_PATH_MAX * 4) : path;
  const redacted = head
    .replace(ENCODED_WORD_CHARACTER, decodeWordCharacter)
    .replace(API_KEY, 'psk_[redacted]')
    .replace(BARE_KEY_BODY, '[redacted]');
  return redacted.length > LOGGED_PATH_MAX || head !== path ? `${redacted.slice(0, LOGGED_PATH_MAX - 1)}…` : redacted;
}

const API_PREFIX = `${API_BASE_PATH}/`;

const isApiPath = (path: string): boolean => path === API_BASE_PATH || path.startsWith(API_PREFIX);

/**
 * The route a request is logged under: the template of the route that took it (or that has its path,
 * when the method was wrong), so that ids never scatter one route over many log keys; otherwise its
 * path, cut and redacted.
 */
function routeOf(ctx: HttpContext): string {
  const template = ctx._matchedRoute ?? ctx.matched?.[0]?.path;
  return typeof template === 'string' ? template : loggablePath(ctx.path);
}

/** The fields of a request's log line, in the order they are written. */
export interface RequestLogFields {
  readonly requestId: string;
  readonly method: string;
  readonly route: string;
  readonly status: number;
  readonly ms: number;
  readonly keyId: string | null;
}

/**
 * What the request log writes its lines with: a pino logger fits, and so does the RequestLineWriter
 * the server uses, which writes the same lines for less.
 */
export interface AccessLogger {
  isLevelEnabled(level: Level): boolean;
  info(fields: RequestLogFields, msg: string): void;
  debug(fields: RequestLogFields, msg: string): void;
}

/** Writes the line of a request whose answer is decided, `startedAt` being when the log first saw it. */
function writeLine(logger: AccessLogger, ctx: HttpContext, startedAt: number): void {
  const unrouted = ctx._matchedRoute === undefined && (ctx.matched ?? []).length === 0;
  const level: 'debug' | 'info' = unrouted && !isApiPath(ctx.path) ? 'debug' : 'info';
  // A logger above the level (silent in tests and embedding) costs no line object per request.
  if (!logger.isLevelEnabled(level)) return;
  logger[level](
    {
      requestId: ctx.state.requestId,
      method: ctx.method,
      route: routeOf(ctx),
      status: ctx.status,
      ms: Math.round((performance.now() - startedAt) * 100) / 100,
      keyId: ctx.state.keyId ?? null,
    },
    'request',
  );
}

/**
 * Writes the one log line of each request once its answer is decided: id, method, route, status,
 * milliseconds and key id (never the key, a header or the body). Registered first, so it sees the
 * status the error middleware settled on. A path outside /v1 that no route took is junk a client can
 * send without a key as fast as it likes: it is logged at debug only, so it cannot flood the log.
 * Not async: the line is written by one reaction to the rest of the chain, in the turn `await next()`
 * resumed in, and a failure below (which the error middleware answers first) still passes through
 * unlogged, without an async function's frame and promise a request.
 */
export function accessLog(logger: AccessLogger): HttpMiddleware {
  return (ctx, next) => {
    const startedAt = performance.now();
    let rest: Promise<unknown>;
    try {
      rest = Promise.resolve(next());
    } catch (error) {
      return Promise.reject(error);
    }
    return rest.then(() => writeLine(logger, ctx, startedAt));
  };
}
