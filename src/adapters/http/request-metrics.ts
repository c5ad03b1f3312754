import type Router from '@koa/router';
import type { HttpContext, HttpMiddleware, HttpState, RoutedContext } from './http-context.js';
import type { RouteTable } from './route-table.js';

/** Told of every finished request, with labels from bounded sets only. */
export interface RequestObserver {
  observe(method: string, route: string, status: number, seconds: number): void;
}

/** The Prometheus text of the metrics, for GET /metrics. */
export interface MetricsExposition {
  readonly contentType: string;
  text(): Promise<string>;
}

/** What the app does with metrics: observe each request, and serve the text unless another listener does. */
export interface HttpMetrics {
  readonly requests: RequestObserver;
  /** Served at GET /metrics; absent when the metrics have a listener of their own (PETSTORE_METRICS_PORT). */
  readonly exposition?: MetricsExposition;
}

/** The status label of a request whose client closed its connection before the answer was written (nginx's). */
export const CLIENT_CLOSED_REQUEST = 499;

/** The route label of a request that no route of the app matches, whatever its path. */
export const UNMATCHED_ROUTE = 'unmatched';

const METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

const methodLabel = (method: string): string => (METHODS.has(method) ? method : 'OTHER');

type AppRouter = Router<HttpState, RoutedContext>;

/**
 * The route template of a request. The router sets it for the requests it runs; a request the guard
 * refused (401, 429) never reached it, so the template is looked up then, and a path that exists under
 * another method (405) takes that path's template. Anything else is UNMATCHED_ROUTE: a raw path would
 * let any client add series without bound.
 */
export function routeLabel(ctx: HttpContext, routes: RouteTable): string {
  if (typeof ctx._matchedRoute === 'string') return ctx._matchedRoute;
  return routes.templateOf(ctx.method, ctx.path) ?? UNMATCHED_ROUTE;
}

/**
 * Times every request from its arrival to the end of its response (a streamed list included) and
 * reports it with its method, route template and final status (499 when its client left first). Registered first, so that it sees the
 * status the error middleware settled on.
 */
export function requestMetrics(observer: RequestObserver, routes: RouteTable): HttpMiddleware {
  return (ctx, next) => {
    const startedAt = performance.now();
    // `on`, not `once`: a response closes once (Node guards its 'close'), and `once` would wrap the
    // listener in a state object and a bound function more a request.
    ctx.res.on('close', () => {
      const seconds = (performance.now() - startedAt) / 1000;
      // A response closed before it was written out whole: the client left, and statusCode is only what
      // the app had set by then (Koa's 404 until a handler settles). nginx labels it 499.
      const status = ctx.res.writableFinished ? ctx.res.statusCode : CLIENT_CLOSED_REQUEST;
      observer.observe(methodLabel(ctx.method), routeLabel(ctx, routes), status, seconds);
    });
    return next();
  };
}

/** How long one rendering of the metrics is served again: at most one rendering a second. */
export const METRICS_MAX_AGE_MS = 1_000;

/**
 * The exposition, rendered at most once per `maxAgeMs` (of `nowMs`, a monotonic clock): every request
 * within that time shares one rendering, a pending one included. /metrics needs no key, so without this
 * any client could make the server render the whole registry as fast as it can send requests.
 */
export function cachedExposition(
  exposition: MetricsExposition,
  nowMs: () => number = () => performance.now(),
  maxAgeMs = METRICS_MAX_AGE_MS,
): MetricsExposition {
  let rendered: { readonly atMs: number; readonly text: Promise<string> } | undefined;
  return {
    contentType: exposition.contentType,
    text: () => {
      const now = nowMs();
      if (rendered === undefined || now - rendered.atMs >= maxAgeMs) {
        const text = exposition.text();
        rendered = { atMs: now, text };
        // A failed rendering is not served again: the next request tries anew.
        text.catch(() => {
          if (rendered?.text === text) rendered = undefined;
        });
      }
      return rendered.text;
    },
  };
}

/**
 * GET /metrics: outside /v1, so no key and no limit (on the API's port, the exposition given is a
 * {@link cachedExposition}); keep it from the public behind the proxy (deploy/nginx refuses it).
 */
export function addMetricsRoute(router: AppRouter, exposition: MetricsExposition): void {
  router.get('/metrics', async (ctx) => {
    const text = await exposition.text();
    ctx.res.setHeader('Content-Type', exposition.contentType);
    ctx.res.setHeader('Cache-Control', 'no-store');
    ctx.body = text;
  });
}
