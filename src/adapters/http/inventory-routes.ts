import type Router from '@koa/router';
import type { InventoryColumnsSource, InventoryQuery } from '../../application/ports/inventory-repository.js';
import type { AdjustStock } from '../../application/use-cases/adjust-stock.js';
import type { GetInventoryItem } from '../../application/use-cases/get-inventory-item.js';
import type { ListAllStockChanges } from '../../application/use-cases/list-all-stock-changes.js';
import type { ListInventory } from '../../application/use-cases/list-inventory.js';
import type { ListStockChanges } from '../../application/use-cases/list-stock-changes.js';
import type { NameKeys } from '../../application/use-cases/name-keys.js';
import type { UpdateStock } from '../../application/use-cases/update-stock.js';
import type { UpdateStockBatch } from '../../application/use-cases/update-stock-batch.js';
import { API_BASE_PATH } from './api-guard.js';
import { batchUpdateInventory } from './batch-inventory-route.js';
import { FEED_PATH, listAllStockChanges } from './change-feed-route.js';
import { listTag, noneMatchNames, versionTag } from './entity-tags.js';
import { sendError } from './error-response.js';
import { NOT_MODIFIED_STATUS } from './error-table.js';
import {
  answerWithHeld,
  type HttpContext,
  type HttpState,
  holdHeader,
  JSON_CONTENT_TYPE,
  keepsHeldHeaders,
  type RoutedContext,
  type RouteMiddleware,
  releaseHeldHeaders,
  sendJson,
} from './http-context.js';
import { InventoryBodyCache } from './inventory-body-cache.js';
import { columnPieces, inventoryJsonBody, itemPieces } from './inventory-stream.js';
import { readJsonBody, requireJsonBody } from './json-body.js';
import { itemJson, namedItemJson } from './json-writer.js';
import { inventoryCsvBody, namedJsonBody } from './named-inventory.js';
import { setNextLink } from './paging-link.js';
import { type InventoryPage, parseInventoryQuery, parsePetIdParam } from './request-schemas.js';
import { listStockChanges } from './stock-history-route.js';
import { adjustInventory, updateInventory } from './update-inventory-route.js';

/** The use cases of the inventory area. */
export interface InventoryRouteDeps {
  readonly listInventory: ListInventory;
  readonly getInventoryItem: GetInventoryItem;
  readonly updateStock: UpdateStock;
  readonly adjustStock: AdjustStock;
  readonly updateStockBatch: UpdateStockBatch;
  readonly listStockChanges: ListStockChanges;
  readonly listAllStockChanges: ListAllStockChanges;
  readonly nameKeys: NameKeys;
  /** The store's list by columns, when it has one: long lists are written from it. */
  readonly inventoryColumns?: InventoryColumnsSource | undefined;
}

/** How the inventory routes behave. */
export interface InventoryRouteOptions {
  readonly bodyLimitBytes: number;
  /** Whether a write without a condition (If-Match; a batch entry's ifVersion) is refused with 428. */
  readonly requireIfMatch: boolean;
}

const NO_PAGING: InventoryPage = {};

/**
 * Answers 304 with no body (the headers set so far stay: request id, rate limits, the ETag) when the
 * request's If-None-Match names `tag`; says whether it did.
 */
function answeredNotModified(ctx: HttpContext, tag: string): boolean {
  ctx.res.setHeader('ETag', tag);
  if (!noneMatchNames(ctx.req.headers['if-none-match'], tag)) return false;
  ctx.status = NOT_MODIFIED_STATUS;
  return true;
}

/**
 * A page of at most `limit` entries. One entry more is read, so that `Link: rel="next"` goes out exactly
 * when another page follows; the page is built whole (at most PAGE_LIMIT_MAX entries) because the link
 * names its last id and must be sent before the body.
 */
async function sendPage(ctx: HttpContext, listInventory: ListInventory, page: InventoryPage, limit: number) {
  const { q, ...filters } = page;
  const items = [
    ...(await listInventory.page({ ...filters, ...(q === undefined ? {} : { nameContains: q }), limit: limit + 1 })),
  ];
  const last = items[limit - 1];
  if (items.length > limit && last !== undefined) {
    items.length = limit;
    setNextLink(ctx, `${API_BASE_PATH}/inventory`, { ...filterParams(page), after: last.petId, limit });
  }
  sendJson(ctx, `[${items.map(namedItemJson).join(',')}]`);
}

/** The filters of `page` as query parameters, for the next page's link (in the spelling they came in). */
function filterParams(page: InventoryPage): Record<string, string | number> {
  const params: Record<string, string | number> = {};
  if (page.statuses !== undefined) params.status = page.statuses.join(',');
  if (page.maxAvailable !== undefined) params.maxAvailable = page.maxAvailable;
  if (page.q !== undefined) params.q = page.q;
  return params;
}

const isFiltered = (page: InventoryPage): boolean => page.statuses !== undefined || page.maxAvailable !== undefined;

/**
 * The tag of a whole filtered list: the store's stamp (read before the list, as for the whole list)
 * and the filter, so that no two filters of one stamp share a tag. Pages, filtered or not, have none.
 */
const filteredListTag = (stamp: string, page: InventoryPage): string =>
  listTag(`${stamp}~${page.statuses?.join(',') ?? ''}~${page.maxAvailable ?? ''}`);

function listInventory(deps: InventoryRouteDeps): RouteMiddleware {
  const source = deps.inventoryColumns;
  const pieces = (query: InventoryQuery = {}): AsyncIterable<string> =>
    source === undefined ? itemPieces(deps.listInventory.execute(query)) : columnPieces(source.listColumns(query));
  // One per app: the guard and the headers above still run for every request; only the store read and
  // the JSON writing of an unchanged whole list are saved.
  const wholeListBody = new InventoryBodyCache(pieces);
  const answer = async (ctx: HttpContext, page: InventoryPage): Promise<void> => {
    if (page.limit !== undefined) return sendPage(ctx, deps.listInventory, page, page.limit);
    if (page.q !== undefined) {
      ctx.res.setHeader('Content-Type', JSON_CONTENT_TYPE);
      ctx.body = namedJsonBody(deps.listInventory, page);
      return;
    }
    if (page.after === undefined && isFiltered(page)) {
      if (answeredNotModified(ctx, filteredListTag(await deps.listInventory.stamp(), page))) return;
      ctx.res.setHeader('Content-Type', JSON_CONTENT_TYPE);
      ctx.body = await inventoryJsonBody(pieces(page));
      return;
    }
    if (page.after !== undefined) {
      ctx.res.setHeader('Content-Type', JSON_CONTENT_TYPE);
      ctx.body = await inventoryJsonBody(pieces(page));
      return;
    }
    // The stamp is read before the list, so the tag is known before the first byte of a streamed one.
    const stamp = await deps.listInventory.stamp();
    const tag = wholeListBody.tag(stamp);
    const kept = wholeListBody.kept(stamp);
    // What nearly every GET of the list answers, 304 or the bytes kept since the stamp last moved: the
    // whole answer written at once, with the headers held for it (see answerWithHeld).
    if (noneMatchNames(ctx.req.headers['if-none-match'], tag)) {
      holdHeader(ctx, 'ETag', tag);
      return answerWithHeld(ctx, NOT_MODIFIED_STATUS);
    }
    if (kept !== undefined) {
      holdHeader(ctx, 'ETag', tag);
      holdHeader(ctx, 'Content-Type', JSON_CONTENT_TYPE);
      holdHeader(ctx, 'Content-Length', String(kept.length));
      return answerWithHeld(ctx, 200, kept);
    }
    releaseHeldHeaders(ctx);
    ctx.res.setHeader('ETag', tag);
    ctx.res.setHeader('Content-Type', JSON_CONTENT_TYPE);
    ctx.body = await wholeListBody.read(stamp);
  };
  // The whole list without a query writes the held headers itself; every other answer releases them first.
  return keepsHeldHeaders<RouteMiddleware>((ctx) => {
    // Most calls carry no query: skip parsing it.
    if (ctx.querystring === '') return answer(ctx, NO_PAGING);
    releaseHeldHeaders(ctx);
    const parsed = parseInventoryQuery(ctx.query);
    if (!parsed.ok) return sendError(ctx, 'invalid_query', parsed.error);
    return answer(ctx, parsed.value);
  });
}

/**
 * exportInventory: the whole list the filters select (`limit` aside), with names, as CSV streamed a
 * page at a time, for a spreadsheet: quick at any size, since no page waits for the others.
 */
function exportInventory(list: ListInventory): RouteMiddleware {
  return async (ctx) => {
    const parsed = parseInventoryQuery(ctx.query);
    if (!parsed.ok) return sendError(ctx, 'invalid_query', parsed.error);
    ctx.res.setHeader('Content-Type', 'text/csv; charset=utf-8; header=present');
    ctx.res.setHeader('Content-Disposition', 'attachment; filename="inventory.csv"');
    ctx.body = inventoryCsvBody(list, parsed.value);
  };
}

function getInventoryItem(useCase: GetInventoryItem): RouteMiddleware {
  return async (ctx) => {
    const petId = parsePetIdParam(ctx.params.petId);
    if (!petId.ok) return sendError(ctx, 'invalid_pet_id', petId.error);
    const found = await useCase.execute({ petId: petId.value });
    if (!found.ok) return sendError(ctx, found.error.code, found.error.message);
    if (answeredNotModified(ctx, versionTag(found.value.version))) return;
    sendJson(ctx, itemJson(found.value.item));
  };
}

/**
 * listInventory, exportInventory, getInventoryItem, updateInventory (experimental), adjustInventory, batchUpdateInventory
 * listStockChanges and listAllStockChanges.
 */
export function addInventoryRoutes(
  router: Router<HttpState, RoutedContext>,
  deps: InventoryRouteDeps,
  options: InventoryRouteOptions,
): void {
  router.get(`${API_BASE_PATH}/inventory`, listInventory(deps));
  router.get(`${API_BASE_PATH}/inventory.csv`, exportInventory(deps.listInventory));
  // Before the pet's route, whose :petId would take the word `changes`.
  router.get(FEED_PATH, listAllStockChanges(deps.listAllStockChanges, deps.nameKeys));
  router.get(`${API_BASE_PATH}/inventory/:petId`, getInventoryItem(deps.getInventoryItem));
  router.post(
    `${API_BASE_PATH}/inventory/batch`,
    requireJsonBody,
    readJsonBody(options.bodyLimitBytes),
    batchUpdateInventory(deps.updateStockBatch, options.requireIfMatch),
  );
  router.patch(
    `${API_BASE_PATH}/inventory/:petId`,
    requireJsonBody,
    readJsonBody(options.bodyLimitBytes),
    updateInventory(deps.updateStock, options.requireIfMatch),
  );
  router.post(
    `${API_BASE_PATH}/inventory/:petId/adjustments`,
    requireJsonBody,
    readJsonBody(options.bodyLimitBytes),
    adjustInventory(deps.adjustStock, options.requireIfMatch),
  );
  router.get(`${API_BASE_PATH}/inventory/:petId/changes`, listStockChanges(deps.listStockChanges, deps.nameKeys));
}
