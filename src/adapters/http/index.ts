/**
 * The pet store API over Koa: `petstore-inventory/koa`. `createHttpApp(deps)` builds the app over the
 * core without listening (`http.createServer(app.callback())` is yours to own). Needs koa, @koa/router,
 * koa-bodyparser, valibot, lossless-json and pino; without them, importing this subpath throws a
 * MissingPeerError with the line that installs them.
 *
 * @packageDocumentation
 */
import { requirePeers } from '../shared/peer-packages.js';

export type { AccessLogger, RequestLogFields } from './access-log.js';
export type { KeyUseSink } from './api-guard.js';
export type { HttpAppDeps, HttpAppOptions, HttpUseCases } from './create-http-app.js';
export type { OpenApiServers } from './openapi.js';
export type { HttpMetrics, MetricsExposition, RequestObserver } from './request-metrics.js';
export type { RequestTracing, TracedRequest } from './request-tracing.js';

/** The packages this subpath needs: what `createHttpApp` and the request schemas import. */
export const KOA_PEERS = ['koa', '@koa/router', 'koa-bodyparser', 'valibot', 'lossless-json', 'pino'] as const;

await requirePeers('petstore-inventory/koa', KOA_PEERS);
const [app, openapi] = await Promise.all([import('./create-http-app.js'), import('./openapi.js')]);

/** Builds the Koa app of the pet store API over the core's use cases; it never listens. */
export const createHttpApp = app.createHttpApp;
/** When getPetById is taken to have been deprecated, unless configured. */
export const DEFAULT_DEPRECATED_AT = app.DEFAULT_DEPRECATED_AT;
/** The OpenAPI 3.1 description of the /v1 API for `servers` and a body limit. */
export const openApiDocument = openapi.openApiDocument;
