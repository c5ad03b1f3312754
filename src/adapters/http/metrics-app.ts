import Router from '@koa/router';
import Koa from 'koa';
import { type Logger, pino } from 'pino';
import { errorMiddleware } from './error-middleware.js';
import type { HttpState, RoutedContext } from './http-context.js';
import { addMetricsRoute, type MetricsExposition } from './request-metrics.js';
import { unmatchedRoute } from './unmatched-route.js';

/**
 * The app of the metrics' own listener (PETSTORE_METRICS_PORT): GET /metrics and nothing else, with the
 * Error body for every other request. It never listens: the caller owns the socket.
 */
export function createMetricsApp(exposition: MetricsExposition, logger?: Logger): Koa<HttpState, RoutedContext> {
  const router = new Router<HttpState, RoutedContext>({ sensitive: true, strict: true });
  addMetricsRoute(router, exposition);
  const app = new Koa<HttpState, RoutedContext>();
  app.use(errorMiddleware(logger ?? pino({ level: 'silent' })));
  app.use(router.routes());
  app.use(unmatchedRoute);
  return app;
}
