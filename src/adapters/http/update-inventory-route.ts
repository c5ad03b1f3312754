import type { AdjustStock } from '../../application/use-cases/adjust-stock.js';
import type { OnePetWriteInput, OnePetWriteResult, UpdateStock } from '../../application/use-cases/update-stock.js';
import type { Result } from '../../domain/result.js';
import { API_BASE_PATH } from './api-guard.js';
import { sendError } from './error-response.js';
import type { RouteMiddleware } from './http-context.js';
import { jsonBodyOf } from './json-body.js';
import { parsePetIdParam } from './request-schemas.js';
import { parseAdjustment, parseInventoryUpdate } from './stock-request-schemas.js';
import { conditionOf, sendOnePetWrite, writeHeadersOf } from './stock-write-request.js';

/**
 * A write of one pet: checks the request (petId, body, Idempotency-Key, If-Match) before any write, so
 * that a 400 or a 428 is never stored as a key's outcome, then answers what the write decided, first
 * time or replayed alike. `parse` reads the body into the order's own fields; `subpath` follows the
 * pet's path (the canonical path names the request in its fingerprint).
 */
function onePetWrite<B extends object>(
  parse: (body: unknown) => Result<B, string>,
  write: (input: OnePetWriteInput & B) => Promise<OnePetWriteResult>,
  subpath: string,
  requireIfMatch: boolean,
): RouteMiddleware {
  return async (ctx) => {
    const petId = parsePetIdParam(ctx.params.petId);
    if (!petId.ok) return sendError(ctx, 'invalid_pet_id', petId.error);
    const body = jsonBodyOf(ctx);
    if (!body.ok) return sendError(ctx, 'invalid_body', body.error);
    const fields = parse(body.value);
    if (!fields.ok) return sendError(ctx, 'invalid_body', fields.error);
    const headers = writeHeadersOf(ctx, `${API_BASE_PATH}/inventory/${petId.value}${subpath}`);
    if (headers === undefined) return;
    const condition = conditionOf(ctx, requireIfMatch);
    if (condition === undefined) return;
    // The optional fields are named one by one rather than spread, so every request builds one shape.
    const input = {
      ...fields.value,
      petId: petId.value,
      actor: headers.actor,
      idempotency: headers.idempotency,
      ifVersion: condition.ifVersion,
    };
    sendOnePetWrite(ctx, await write(input));
  };
}

/** updateInventory: sets the stock of one pet (PATCH). */
export const updateInventory = (updateStock: UpdateStock, requireIfMatch: boolean): RouteMiddleware =>
  onePetWrite(parseInventoryUpdate, (input) => updateStock.execute(input), '', requireIfMatch);

/** adjustInventory: moves the stock of one pet by a delta (POST .../adjustments). */
export const adjustInventory = (adjustStock: AdjustStock, requireIfMatch: boolean): RouteMiddleware =>
  onePetWrite(parseAdjustment, (input) => adjustStock.execute(input), '/adjustments', requireIfMatch);
