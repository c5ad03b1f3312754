import type { RouterContext, RouterMiddleware } from '@koa/router';
import type { Middleware, ParameterizedContext } from 'koa';
import type { Principal } from '../../domain/api-key.js';
import type { RateLimitStanding } from '../../domain/rate-limit-standing.js';

/** What the middlewares of one request tell each other. */
export interface HttpState {
  /** Set first, by the error middleware, so that every later failure can name it. */
  requestId: string;
  /** The API key the request acts as, once authenticated; for the log and the stock-change record. */
  keyId: string | undefined;
  /** How many Authorization field lines the request carried, once the protocol checks counted them. */
  authorizationLines?: number;
  /** For GET /v1/rate_limit: the caller and the standing the guard read, so the body and headers agree. */
  rateLimit?: { readonly principal: Principal; readonly standing: RateLimitStanding };
  /**
   * The headers every answer of the API carries (request id, Cache-Control, the rate limits), as name,
   * value, name, value..., held until the answer is written (see holdHeader): absent once released.
   */
  heldHeaders?: string[] | undefined;
}

/**
 * What @koa/router leaves on the context: the route template of a routed request (for the log) and
 * the routes whose path matched under any method (for a 405's Allow, and the log's template).
 */
export interface RoutedContext {
  _matchedRoute?: string | RegExp;
  matched?: readonly { readonly path: string | RegExp; readonly methods: readonly string[] }[];
}

/** The context of an app-level middleware. */
export type HttpContext = ParameterizedContext<HttpState, RoutedContext>;

/** The context of a route handler, with the router's params. */
export type RouteContext = RouterContext<HttpState, RoutedContext>;

export type HttpMiddleware = Middleware<HttpState, RoutedContext>;

export type RouteMiddleware = RouterMiddleware<HttpState, RoutedContext>;

/** Content type of every body the service writes. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/*
 * Headers on the hot path are set on the Node response directly: Koa 3's `ctx.set` allocates arrays and
 * closures on every call, which measured about 2 µs a header, a tenth of a whole request. Nothing has
 * been sent while a middleware runs, so the check `ctx.set` adds is not needed.
 */

/** What Koa's response keeps of its body and status (koa 3, lib/response.js), which sendJson sets itself. */
interface KoaResponseFields {
  _body: unknown;
  _explicitStatus?: boolean;
}

/**
 * Sends a body of JSON text written by json-writer, or its bytes. Koa's body setter does for a string
 * (or a Buffer, when a Content-Type is set) what is done
 * here, through its `set` (arrays and closures a header) and its status setter (two asserts, each
 * building its message): its own path is kept for what this one leaves out, a stream answered before
 * (Koa destroys it) and a Transfer-Encoding set by hand (Koa then sets no Content-Length).
 */
export function sendJson(ctx: HttpContext, json: string | Buffer): void {
  const res = ctx.res;
  res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  const response = ctx.response as unknown as KoaResponseFields;
  const previous = response._body;
  if (
    (previous !== null && previous !== undefined && typeof previous !== 'string' && !Buffer.isBuffer(previous)) ||
    res.hasHeader('Transfer-Encoding')
  ) {
    ctx.body = json;
    return;
  }
  response._body = json;
  // Koa's `status = 200` when no status was set: an explicit one (201, a 4xx) stays.
  if (response._explicitStatus !== true) {
    response._explicitStatus = true;
    res.statusCode = 200;
    if (ctx.req.httpVersionMajor < 2) res.statusMessage = 'OK';
  }
  res.setHeader('Content-Length', String(Buffer.byteLength(json)));
}

/*
 * The headers every answer carries are held on the state rather than set on the Node response, so that
 * the list's usual answers (200 with the kept bytes, 304) go out in one `writeHead(status, fields)`:
 * Node takes a flat list of fields without its per-header `setHeader` work (a lower-cased name, a pair
 * and a slot a header, then a second pass over them) when no header was set before. Every other answer
 * releases them first (releaseHeldHeaders: the route table before a route or the 404, sendError, the
 * guard before its own headers, the error middleware at the end), so they are set in the same order as
 * before, ahead of whatever the answer adds.
 */

/** Holds a header of the answer (see heldHeaders), after the ones held before it. */
export function holdHeader(ctx: HttpContext, name: string, value: string): void {
  const held = ctx.state.heldHeaders;
  if (held === undefined) ctx.state.heldHeaders = [name, value];
  else held.push(name, value);
}

/** Sets the held headers on the response, in the order they were held; once. */
export function releaseHeldHeaders(ctx: HttpContext): void {
  const held = ctx.state.heldHeaders;
  if (held === undefined) return;
  ctx.state.heldHeaders = undefined;
  const res = ctx.res;
  if (res.headersSent) return;
  for (let i = 0; i < held.length; i += 2) res.setHeader(held[i] as string, held[i + 1] as string);
}

/** A route handler that answers with the held headers itself (see answerWithHeld): the route table leaves them held. */
const KEEPS_HELD_HEADERS = Symbol('keeps held headers');

/** Marks `handler` as one that releases or writes the held headers itself. */
export function keepsHeldHeaders<M extends object>(handler: M): M {
  (handler as { [KEEPS_HELD_HEADERS]?: true })[KEEPS_HELD_HEADERS] = true;
  return handler;
}

/** Whether `handler` was marked by keepsHeldHeaders. */
export const isKeepingHeldHeaders = (handler: object): boolean =>
  (handler as { [KEEPS_HELD_HEADERS]?: true })[KEEPS_HELD_HEADERS] === true;

/**
 * Writes the whole answer at once: the held headers (the answer's own held last, with holdHeader) in
 * one `writeHead`, then `body` (none for a 304, and Node sends none to a HEAD, whose Content-Length stays
 * that of the GET). Koa's own `respond` is skipped; the access log and the metrics read the status
 * from the response as before.
 */
export function answerWithHeld(ctx: HttpContext, status: number, body?: Buffer | string): void {
  const held = ctx.state.heldHeaders ?? [];
  ctx.state.heldHeaders = undefined;
  ctx.respond = false;
  const res = ctx.res;
  res.writeHead(status, held);
  if (body === undefined) res.end();
  else res.end(body);
}
