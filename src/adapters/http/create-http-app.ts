import Router from '@koa/router';
import Koa from 'koa';
import { type Logger, pino } from 'pino';
import type { InventoryCore } from '../../application/inventory-core.js';
import type { Clock } from '../../application/ports/clock.js';
import type { InventoryColumnsSource } from '../../application/ports/inventory-repository.js';
import type { HoldLimits } from '../../domain/reservation.js';
import { type AccessLogger, accessLog } from './access-log.js';
import { apiGuard, type KeyUseSink } from './api-guard.js';
import { errorMiddleware } from './error-middleware.js';
import type { HttpState, RoutedContext } from './http-context.js';
import type { HttpPages } from './http-pages.js';
import { addInventoryRoutes } from './inventory-routes.js';
import { DEFAULT_BODY_LIMIT_BYTES } from './json-body.js';
import { type OpenApiServers, openApiDocument } from './openapi.js';
import { addOrderRoutes } from './order-routes.js';
import { addPetRoutes } from './pet-routes.js';
import { protocolChecks } from './protocol-checks.js';
import { addRateLimitRoute } from './rate-limit-route.js';
import { addMetricsRoute, type HttpMetrics, requestMetrics } from './request-metrics.js';
import { type RequestTracing, traceRequests } from './request-tracing.js';
import { addReservationRoutes } from './reservation-routes.js';
import { RouteTable } from './route-table.js';
import { addServiceRoutes } from './service-routes.js';
import { unmatchedRoute } from './unmatched-route.js';

const noChecks = (): Readonly<Record<string, boolean>> => ({});

type AppRouter = Router<HttpState, RoutedContext>;

/** When getPetById is taken to have been deprecated, unless configured: the release of interface 1.0.0. */
export const DEFAULT_DEPRECATED_AT = new Date('2026-01-01T00:00:00Z');

/** Settings of the HTTP surface. */
export interface HttpAppOptions {
  /** When the deprecated GET /v1/pets/{petId} stops answering (410 gone from then on); sent as `Sunset`. */
  readonly sunsetAt: Date;
  /** When GET /v1/pets/{petId} was deprecated, sent as `Deprecation`; {@link DEFAULT_DEPRECATED_AT} if absent. */
  readonly deprecatedAt?: Date;
  /** Base URLs of production and staging, each ending in /v1, for the OpenAPI document's servers. */
  readonly servers: OpenApiServers;
  /**
   * Whether a proxy in front sets X-Forwarded-For. When true, the client address (which requests without
   * a valid key are limited by) is the entry the nearest proxy appended, the last one: entries to its
   * left come from the client and could be forged. When false the header is ignored.
   */
  readonly trustProxy: boolean;
  /** The largest request body read; larger ones get 413. Default 16 KiB. */
  readonly bodyLimitBytes?: number;
  /**
   * Whether a PATCH must carry If-Match: without it, 428 precondition_required, so that no client can
   * overwrite a stock level it has not read. Default false.
   */
  readonly requireIfMatch?: boolean;
  /**
   * The limits on a key's holds the core was built with (InventoryCoreOptions.holdLimits), stated in the
   * OpenAPI document; DEFAULT_HOLD_LIMITS when absent.
   */
  readonly holdLimits?: HoldLimits;
}

/** The use cases the HTTP surface calls: a part of the core, so `createInventoryCore(...)` fits. */
export type HttpUseCases = Pick<
  InventoryCore,
  | 'listInventory'
  | 'getInventoryItem'
  | 'updateStock'
  | 'adjustStock'
  | 'updateStockBatch'
  | 'listStockChanges'
  | 'listAllStockChanges'
  | 'nameKeys'
  | 'reserveStock'
  | 'getReservation'
  | 'commitReservation'
  | 'releaseReservation'
  | 'authenticate'
  | 'admitRequest'
  | 'getRateLimit'
  | 'getPet'
  | 'listOrders'
>;

/** What the HTTP adapter needs: the use cases it calls, the time, a logger, readiness and options. */
export interface HttpAppDeps extends HttpUseCases {
  /** The time for rate-limit headers and the sunset check (the limiter keeps its own). */
  readonly clock: Clock;
  /** One line per request, and the detail of every 500. Silent when absent. */
  readonly logger?: Logger;
  /**
   * The one line of each request, when it should go through a logger of its own (the server's has no
   * redaction, as the line holds fixed fields and never a header). `logger` when absent.
   */
  readonly accessLogger?: AccessLogger;
  /**
   * The store's list by columns, when it has one (see InventoryRepository.listColumns, and
   * `listsColumns`): long lists are then written from its columns; else from the items.
   */
  readonly inventoryColumns?: InventoryColumnsSource | undefined;
  /** False while the service starts or drains: /readyz answers 503 then. */
  readonly readiness: () => boolean;
  /** What /readyz reports of the parts that can be down (e.g. `{ redis: true }`); none when absent. */
  readonly healthChecks?: () => Readonly<Record<string, boolean>>;
  /**
   * Told of every request a valid key makes, for its last-use time (a KeyUseRecorder, which writes
   * off the request path); no use is recorded when absent.
   */
  readonly keyUses?: KeyUseSink;
  /** Request durations, and GET /metrics unless the metrics have their own listener. None when absent. */
  readonly metrics?: HttpMetrics;
  /** Names each request's trace by its route template and marks its key id. None when absent. */
  readonly tracing?: RequestTracing;
  /** Pages beside the API, outside /v1 (the server adds its API reference at /docs). None when absent. */
  readonly pages?: readonly HttpPages[];
  readonly options: HttpAppOptions;
}

/** Refuses options the app could not honour: a caller that passes them has a bug. */
function checkOptions(options: HttpAppOptions, bodyLimitBytes: number): void {
  for (const [name, url] of Object.entries(options.servers)) {
    if (!URL.canParse(url) || !url.endsWith('/v1')) {
      throw new RangeError(`the ${name} server URL ${url} must be a URL ending in /v1`);
    }
  }
  if (!Number.isSafeInteger(bodyLimitBytes) || bodyLimitBytes < 1) {
    throw new RangeError(`the body limit ${bodyLimitBytes} must be a positive whole number of bytes`);
  }
  for (const date of [options.sunsetAt, options.deprecatedAt]) {
    if (date !== undefined && Number.isNaN(date.getTime())) {
      throw new RangeError('the deprecation and sunset dates must be valid dates');
    }
  }
}

// How Node reports a client that closed its connection early: mid-response, or mid-body (the parser
// then meets the end of the stream inside a request).
const CLIENT_GONE = new Set(['ECONNRESET', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE', 'HPE_INVALID_EOF_STATE']);

const isClientGone = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && 'code' in err && CLIENT_GONE.has(String(err.code));

/**
 * The routes of the app, declared on @koa/router in the order they are tried (the route table keeps it).
 * Case-sensitive and strict, so that /V1/inventory or /v1/inventory/ cannot reach a route by a spelling
 * the guard does not check.
 */
export function appRouter(deps: HttpAppDeps, openApiJson: string, bodyLimitBytes: number): AppRouter {
  const { options } = deps;
  const router = new Router<HttpState, RoutedContext>({ sensitive: true, strict: true });
  addServiceRoutes(router, deps.readiness, deps.healthChecks ?? noChecks, openApiJson);
  addInventoryRoutes(router, deps, { bodyLimitBytes, requireIfMatch: options.requireIfMatch ?? false });
  addReservationRoutes(router, deps, { bodyLimitBytes });
  addPetRoutes(router, deps, {
    deprecatedAt: options.deprecatedAt ?? DEFAULT_DEPRECATED_AT,
    sunsetAt: options.sunsetAt,
    infoUrl: `${options.servers.production}/openapi.json`,
  });
  addOrderRoutes(router, deps.listOrders);
  addRateLimitRoute(router);
  for (const page of deps.pages ?? []) page.addRoutes(router);
  if (deps.metrics?.exposition !== undefined) addMetricsRoute(router, deps.metrics.exposition);
  return router;
}

/**
 * Builds the Koa app of the pet store API. It never listens: the caller owns the socket
 * (`http.createServer(app.callback())`), and so its timeouts and its shutdown.
 */
export function createHttpApp(deps: HttpAppDeps): Koa<HttpState, RoutedContext> {
  const { options } = deps;
  const logger = deps.logger ?? pino({ level: 'silent' });
  const bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  checkOptions(options, bodyLimitBytes);
  const openApiJson = JSON.stringify(openApiDocument(options.servers, bodyLimitBytes, options.holdLimits));

  const app = new Koa<HttpState, RoutedContext>({ proxy: options.trustProxy, maxIpsCount: 1 });
  // Failures after the first byte (a store failing mid-list) cannot become an Error body any more:
  // the stream is destroyed with the connection, and the cause is logged here, never printed. A client
  // that leaves early is no failure of the service: one info line, however many errors it raises.
  const reported = new WeakSet<object>();
  app.on('error', (err: unknown, ctx?: { state?: Partial<HttpState> }) => {
    if (ctx !== undefined && reported.has(ctx)) return;
    if (ctx !== undefined) reported.add(ctx);
    const requestId = ctx?.state?.requestId;
    if (isClientGone(err)) logger.info({ requestId }, 'the client left before the exchange ended');
    else logger.error({ err, requestId }, 'response failed after it started');
  });

  const pages = deps.pages ?? [];
  // The routes compiled once all are added: router.routes() would match every layer and build its
  // arrays, closures and composition again for every request (2.2 KB of a PATCH), for the same answer.
  const routes = new RouteTable(appRouter(deps, openApiJson, bodyLimitBytes));
  if (deps.metrics !== undefined) app.use(requestMetrics(deps.metrics.requests, routes));
  app.use(accessLog(deps.accessLogger ?? logger));
  if (deps.tracing !== undefined) app.use(traceRequests(deps.tracing, routes));
  app.use(errorMiddleware(logger));
  app.use(protocolChecks);
  app.use(
    apiGuard({
      ...deps,
      isOperation: (method, path) => routes.isOperation(method, path),
      pagePaths: new Set(pages.flatMap((page) => [...page.paths])),
    }),
  );
  app.use(routes.dispatch);
  app.use(unmatchedRoute);
  return app;
}
