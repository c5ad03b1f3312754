import type Router from '@koa/router';
import type { ListInventory } from '../../application/use-cases/list-inventory.js';
import type { UpdateStock } from '../../application/use-cases/update-stock.js';
import { API_BASE_PATH } from './api-guard.js';
import { sendError } from './error-response.js';
import {
  type HttpState,
  JSON_CONTENT_TYPE,
  type RoutedContext,
  type RouteMiddleware,
  sendJson,
} from './http-context.js';
import { InventoryBodyCache } from './inventory-body-cache.js';
import { inventoryJsonBody } from './inventory-stream.js';
import { jsonBodyOf, readJsonBody, requireJsonBody } from './json-body.js';
import { itemJson } from './json-writer.js';
import { type InventoryPage, parseInventoryQuery, parseInventoryUpdate, parsePetIdParam } from './request-schemas.js';

/** The use cases of the inventory area. */
export interface InventoryRouteDeps {
  readonly listInventory: ListInventory;
  readonly updateStock: UpdateStock;
}

const NO_PAGING: InventoryPage = {};

function listInventory(deps: InventoryRouteDeps): RouteMiddleware {
  // One per app: the guard and the headers above still run for every request; only the store read and
  // the JSON writing of an unchanged whole list are saved.
  const wholeListBody = new InventoryBodyCache(deps.listInventory);
  return async (ctx) => {
    // Most calls carry no query: skip parsing it.
    let page: InventoryPage = NO_PAGING;
    if (ctx.querystring !== '') {
      const parsed = parseInventoryQuery(ctx.query);
      if (!parsed.ok) return sendError(ctx, 'invalid_query', parsed.error);
      page = parsed.value;
    }
    ctx.res.setHeader('Content-Type', JSON_CONTENT_TYPE);
    const whole = page.after === undefined && page.limit === undefined;
    ctx.body = whole ? await wholeListBody.read() : await inventoryJsonBody(deps.listInventory.execute(page));
  };
}

function updateInventory(deps: InventoryRouteDeps): RouteMiddleware {
  return async (ctx) => {
    const petId = parsePetIdParam(ctx.params.petId);
    if (!petId.ok) return sendError(ctx, 'invalid_pet_id', petId.error);
    const body = jsonBodyOf(ctx);
    if (!body.ok) return sendError(ctx, 'invalid_body', body.error);
    const quantity = parseInventoryUpdate(body.value);
    if (!quantity.ok) return sendError(ctx, 'invalid_body', quantity.error);
    const actor = ctx.state.keyId;
    // The guard lets no request without a key reach this route; one that did would be a bug.
    if (actor === undefined) throw new Error('updateInventory reached without an authenticated key');
    const updated = await deps.updateStock.execute({ petId: petId.value, quantity: quantity.value, actor });
    if (!updated.ok) return sendError(ctx, updated.error.code, updated.error.message);
    sendJson(ctx, itemJson(updated.value.entry.item));
  };
}

/** listInventory and updateInventory (experimental). */
export function addInventoryRoutes(
  router: Router<HttpState, RoutedContext>,
  deps: InventoryRouteDeps,
  bodyLimitBytes: number,
): void {
  router.get(`${API_BASE_PATH}/inventory`, listInventory(deps));
  router.patch(
    `${API_BASE_PATH}/inventory/:petId`,
    requireJsonBody,
    readJsonBody(bodyLimitBytes),
    updateInventory(deps),
  );
}
