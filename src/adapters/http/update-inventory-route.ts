import type { AdjustStock } from '../../application/use-cases/adjust-stock.js';
import type { OnePetWriteResult, UpdateStock } from '../../application/use-cases/update-stock.js';
import type { PetId } from '../../domain/pet-id.js';
import type { Result } from '../../domain/result.js';
import { sendError } from './error-response.js';
import { keepsHeldHeaders, type RouteMiddleware } from './http-context.js';
import { jsonBodyOf } from './json-body.js';
import { parsePetIdParam } from './request-schemas.js';
import { parseAdjustment, parseInventoryUpdate } from './stock-request-schemas.js';
import { conditionOf, petWriteHeadersOf, sendOnePetWrite, type WriteHeaders } from './stock-write-request.js';

/**
 * A write of one pet: checks the request (petId, body, Idempotency-Key, If-Match) before any write, so
 * that a 400 or a 428 is never stored as a key's outcome, then answers what the write decided, first
 * time or replayed alike. `parse` reads the body into the order's own fields; `write` makes the use
 * case's one input of them and the request's; `subpath` follows the pet's path (the canonical path names
 * the request in its fingerprint). Not async: the answer is sent from the write's own reaction, with no
 * frame of the route's kept while the write is out.
 */
function onePetWrite<B extends object>(
  parse: (body: unknown) => Result<B, string>,
  write: (
    body: B,
    petId: PetId,
    headers: WriteHeaders,
    ifVersion: readonly number[] | undefined,
  ) => Promise<OnePetWriteResult>,
  subpath: string,
  requireIfMatch: boolean,
): RouteMiddleware {
  // Every refusal goes through sendError, the answer through sendOnePetWrite: the held headers wait.
  return keepsHeldHeaders<RouteMiddleware>((ctx) => {
    const petId = parsePetIdParam(ctx.params.petId);
    if (!petId.ok) return sendError(ctx, 'invalid_pet_id', petId.error);
    const body = jsonBodyOf(ctx);
    if (!body.ok) return sendError(ctx, 'invalid_body', body.error);
    const fields = parse(body.value);
    if (!fields.ok) return sendError(ctx, 'invalid_body', fields.error);
    const headers = petWriteHeadersOf(ctx, petId.value, subpath);
    if (headers === undefined) return;
    const condition = conditionOf(ctx, requireIfMatch);
    if (condition === undefined) return;
    return write(fields.value, petId.value, headers, condition.ifVersion).then((written) =>
      sendOnePetWrite(ctx, written),
    );
  });
}

// Each use case's input is made in one literal, every field named, none spread: a spread followed by
// more fields was this route's costliest line (a map transition a field on V8's slow path, about 8 µs a
// PATCH in a CPU profile), and an object of the request's fields in between was one more a PATCH.

/** updateInventory: sets the stock of one pet (PATCH). */
export const updateInventory = (updateStock: UpdateStock, requireIfMatch: boolean): RouteMiddleware =>
  onePetWrite(
    parseInventoryUpdate,
    (body, petId, { actor, idempotency }, ifVersion) =>
      updateStock.execute({ petId, actor, idempotency, ifVersion, reason: body.reason, quantity: body.quantity }),
    '',
    requireIfMatch,
  );

/** adjustInventory: moves the stock of one pet by a delta (POST .../adjustments). */
export const adjustInventory = (adjustStock: AdjustStock, requireIfMatch: boolean): RouteMiddleware =>
  onePetWrite(
    parseAdjustment,
    (body, petId, { actor, idempotency }, ifVersion) =>
      adjustStock.execute({ petId, actor, idempotency, ifVersion, reason: body.reason, delta: body.delta }),
    '/adjustments',
    requireIfMatch,
  );
