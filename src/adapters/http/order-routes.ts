import type Router from '@koa/router';
import type { ListOrders } from '../../application/use-cases/list-orders.js';
import { API_BASE_PATH } from './api-guard.js';
import { type HttpState, type RoutedContext, sendJson } from './http-context.js';
import { ordersJson } from './json-writer.js';

/** listOrders: every store order, ids exact. */
export function addOrderRoutes(router: Router<HttpState, RoutedContext>, listOrders: ListOrders): void {
  router.get(`${API_BASE_PATH}/store/orders`, async (ctx) => {
    sendJson(ctx, ordersJson(await listOrders.execute()));
  });
}
