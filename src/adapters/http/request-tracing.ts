import type { HttpMiddleware } from './http-context.js';
import { routeLabel } from './request-metrics.js';
import type { RouteTable } from './route-table.js';

/** What a request turned out to be, for the trace that records it: never a raw path, a key or a header. */
export interface TracedRequest {
  readonly method: string;
  /** The route template (`/v1/inventory/:petId`), or `unmatched`. */
  readonly route: string;
  /** The id of the API key that sent it, once authenticated; never the key. */
  readonly keyId: string | undefined;
}

/** Describes the span of the request being served (the HTTP server's instrumentation made it). */
export interface RequestTracing {
  describe(request: TracedRequest): void;
}

/**
 * Tells `tracing` each request's route template and key id once its answer is decided, before the
 * response ends the span. Registered before the error middleware, so a failed request is described too.
 */
export function traceRequests(tracing: RequestTracing, routes: RouteTable): HttpMiddleware {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      tracing.describe({ method: ctx.method, route: routeLabel(ctx, routes), keyId: ctx.state.keyId });
    }
  };
}
