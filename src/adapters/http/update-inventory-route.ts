import type { UpdateStock } from '../../application/use-cases/update-stock.js';
import { API_BASE_PATH } from './api-guard.js';
import { parseEntityTagList, versionsNamed, versionTag } from './entity-tags.js';
import { sendError } from './error-response.js';
import { type RouteContext, type RouteMiddleware, sendJson } from './http-context.js';
import { idempotencyKeyOf, requestFingerprint } from './idempotency-key.js';
import { jsonBodyOf } from './json-body.js';
import { itemJson } from './json-writer.js';
import { parseInventoryUpdate, parsePetIdParam } from './request-schemas.js';

const IF_MATCH_MESSAGE =
  'If-Match must be * or a comma-separated list of entity tags such as "3" (the ETag of GET /v1/inventory/{petId})';

const IF_MATCH_REQUIRED =
  'this service requires If-Match on updates: read the entry with GET /v1/inventory/{petId} and send its ETag';

/** Marks an answer that is the stored outcome of an earlier request with the same Idempotency-Key. */
function markReplay(ctx: RouteContext, replayed: boolean): void {
  if (replayed) ctx.res.setHeader('Idempotent-Replayed', 'true');
}

/**
 * The versions a write is conditional on: `undefined` for none (no If-Match, or `*`, which any
 * existing entry matches; a missing pet is a 404 either way), or the message of a 400.
 */
function ifVersionOf(field: string | undefined): { readonly ifVersion?: readonly number[] } | string {
  if (field === undefined) return {};
  const list = parseEntityTagList(field);
  if (list === undefined) return IF_MATCH_MESSAGE;
  return list.any ? {} : { ifVersion: versionsNamed(list.tags) };
}

/**
 * updateInventory: checks the request (petId, body, Idempotency-Key, If-Match) before any write, so
 * that a 400 or a 428 is never stored as a key's outcome, then answers what the write decided, first
 * time or replayed alike: the entry with its new ETag, 404, or 412 with the current ETag.
 */
export function updateInventory(updateStock: UpdateStock, requireIfMatch: boolean): RouteMiddleware {
  return async (ctx) => {
    const petId = parsePetIdParam(ctx.params.petId);
    if (!petId.ok) return sendError(ctx, 'invalid_pet_id', petId.error);
    const body = jsonBodyOf(ctx);
    if (!body.ok) return sendError(ctx, 'invalid_body', body.error);
    const update = parseInventoryUpdate(body.value);
    if (!update.ok) return sendError(ctx, 'invalid_body', update.error);
    const key = idempotencyKeyOf(ctx.req.headers['idempotency-key']);
    if (!key.ok) return sendError(ctx, 'invalid_idempotency_key', key.error);
    const ifMatch = ctx.req.headers['if-match'];
    if (ifMatch === undefined && requireIfMatch) return sendError(ctx, 'precondition_required', IF_MATCH_REQUIRED);
    const condition = ifVersionOf(ifMatch);
    if (typeof condition === 'string') return sendError(ctx, 'invalid_if_match', condition);
    const actor = ctx.state.keyId;
    // The guard lets no request without a key reach this route; one that did would be a bug.
    if (actor === undefined) throw new Error('updateInventory reached without an authenticated key');
    const path = `${API_BASE_PATH}/inventory/${petId.value}`;
    // A string: jsonBodyOf has parsed it.
    const text = String(ctx.request.rawBody);
    const updated = await updateStock.execute({
      petId: petId.value,
      ...update.value,
      actor,
      ...condition,
      ...(key.value === undefined
        ? {}
        : { idempotency: { key: key.value, fingerprint: requestFingerprint(ctx.method, path, text) } }),
    });
    if (updated.ok) {
      markReplay(ctx, updated.value.replayed);
      ctx.res.setHeader('ETag', versionTag(updated.value.entry.version));
      return sendJson(ctx, itemJson(updated.value.entry.item));
    }
    const error = updated.error;
    if ('refusals' in error) {
      markReplay(ctx, error.replayed);
      const [refusal] = error.refusals;
      if (refusal?.code === 'precondition_failed') ctx.res.setHeader('ETag', versionTag(refusal.currentVersion));
    }
    sendError(ctx, error.code, error.message);
  };
}
