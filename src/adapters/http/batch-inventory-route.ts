import type { UpdateStockBatch } from '../../application/use-cases/update-stock-batch.js';
import { refusalMessage, type StockRefusal, type WrittenEntry } from '../../domain/stock-outcome.js';
import { API_BASE_PATH } from './api-guard.js';
import { sendError } from './error-response.js';
import { type RouteMiddleware, sendJson } from './http-context.js';
import { jsonBodyOf } from './json-body.js';
import { itemJson } from './json-writer.js';
import { parseBatch } from './stock-request-schemas.js';
import { markReplay, sendWriteFailure, writeHeadersOf } from './stock-write-request.js';

const BATCH_PATH = `${API_BASE_PATH}/inventory/batch`;

const CONDITION_REQUIRED =
  'this service requires a condition on every write: give each entry of the batch its ifVersion ' +
  '(the version of the entry’s ETag, from GET /v1/inventory/{petId})';

/** An entry as a batch answers it: the InventoryItem with its version beside it (no per-item ETag). */
const versionedItemJson = ({ change, version, reserved }: WrittenEntry): string =>
  `${itemJson({ ...change.after, reserved }).slice(0, -1)},"version":${version}}`;

/** The Error body's `errors` member: every refused entry, by its index in the request. */
const errorsJson = (refusals: readonly StockRefusal[]): string =>
  `,"errors":[${refusals
    .map((r) => `{"index":${r.index},"code":"${r.code}","message":${JSON.stringify(refusalMessage(r))}}`)
    .join(',')}]`;

/**
 * batchUpdateInventory: sets or adjusts the stock of up to 100 pets, all in one transaction or none.
 * The request is checked whole before the write (so a 400 or 428 is never stored under a key); then
 * the items in request order, each with its version, or the first refused entry's Error with every
 * refused entry in `errors`, first time or replayed alike. If-Match names one entry, so a batch takes
 * none: each entry carries its own `ifVersion`.
 */
export function batchUpdateInventory(useCase: UpdateStockBatch, requireIfMatch: boolean): RouteMiddleware {
  return async (ctx) => {
    const body = jsonBodyOf(ctx);
    if (!body.ok) return sendError(ctx, 'invalid_body', body.error);
    const orders = parseBatch(body.value);
    if (!orders.ok) return sendError(ctx, 'invalid_body', orders.error);
    const headers = writeHeadersOf(ctx, BATCH_PATH);
    if (headers === undefined) return;
    if (requireIfMatch && orders.value.some((order) => order.ifVersion === undefined)) {
      return sendError(ctx, 'precondition_required', CONDITION_REQUIRED);
    }
    const result = await useCase.execute({ orders: orders.value, ...headers });
    if (result.ok) {
      markReplay(ctx, result.value.replayed);
      return sendJson(ctx, `{"items":[${result.value.entries.map(versionedItemJson).join(',')}]}`);
    }
    const error = result.error;
    sendWriteFailure(ctx, error, undefined, 'refusals' in error ? errorsJson(error.refusals) : undefined);
  };
}
