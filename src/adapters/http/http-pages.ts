import type Router from '@koa/router';
import type { HttpState, RoutedContext } from './http-context.js';

/**
 * Pages served beside the API, outside /v1, such as the server's API reference at /docs: the app adds
 * their routes, and the guard lets their paths through without a key, limited per client address like
 * every request without one. The Koa adapter holds none of its own: the server adds them.
 */
export interface HttpPages {
  /** Every path the pages answer. */
  readonly paths: ReadonlySet<string>;
  /** Adds the pages' routes to the app's router. */
  addRoutes(router: Router<HttpState, RoutedContext>): void;
}
