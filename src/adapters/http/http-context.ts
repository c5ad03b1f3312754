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
