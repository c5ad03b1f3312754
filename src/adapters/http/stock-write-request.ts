import type { OnePetWriteResult } from '../../application/use-cases/update-stock.js';
import type { PetId } from '../../domain/pet-id.js';
import type { StockWriteFailure } from '../../domain/stock-outcome.js';
import { API_BASE_PATH } from './api-guard.js';
import { parseEntityTagList, versionsNamed, versionTag } from './entity-tags.js';
import { sendError } from './error-response.js';
import {
  answerWithHeld,
  holdHeader,
  JSON_CONTENT_TYPE,
  type RouteContext,
  releaseHeldHeaders,
} from './http-context.js';
import { idempotencyKeyOf, requestFingerprint } from './idempotency-key.js';
import { itemJson } from './json-writer.js';

const IF_MATCH_MESSAGE =
  'If-Match must be * or a comma-separated list of entity tags such as "3" (the ETag of GET /v1/inventory/{petId})';

const IF_MATCH_REQUIRED =
  'this service requires If-Match on updates: read the entry with GET /v1/inventory/{petId} and send its ETag';

/** Marks an answer that is the stored outcome of an earlier request with the same Idempotency-Key. */
export function markReplay(ctx: RouteContext, replayed: boolean): void {
  if (replayed) ctx.res.setHeader('Idempotent-Replayed', 'true');
}

/**
 * The versions a write is conditional on: `undefined` for none (no If-Match, or `*`, which any
 * existing entry matches; a missing pet is a 404 either way), or the message of a 400.
 */
function ifVersionOf(field: string | undefined): { readonly ifVersion?: readonly number[] } | string {
  if (field === undefined) return UNCONDITIONAL;
  const list = parseEntityTagList(field);
  if (list === undefined) return IF_MATCH_MESSAGE;
  return list.any ? UNCONDITIONAL : { ifVersion: versionsNamed(list.tags) };
}

/** The condition of a write without one: shared, as nothing changes it. */
const UNCONDITIONAL: { readonly ifVersion?: readonly number[] } = Object.freeze({});

/** What the headers of a stock write ask, besides its body. */
export interface WriteHeaders {
  readonly actor: string;
  readonly idempotency?: { readonly key: string; readonly fingerprint: string };
}

/**
 * The actor and the Idempotency-Key of a stock write to `path` (its canonical path, for the
 * fingerprint), or `undefined` once a 400 has been sent. Runs after the body was parsed, before If-Match.
 */
export const writeHeadersOf = (ctx: RouteContext, path: string): WriteHeaders | undefined =>
  headersOf(ctx, path, undefined, '');

/**
 * `writeHeadersOf` for a write of pet `petId`, whose canonical path is `/v1/inventory/{petId}` and
 * `subpath`: the path is written only for the fingerprint of a request that has a key (most have none).
 */
export const petWriteHeadersOf = (ctx: RouteContext, petId: PetId, subpath: string): WriteHeaders | undefined =>
  headersOf(ctx, undefined, petId, subpath);

function headersOf(
  ctx: RouteContext,
  path: string | undefined,
  petId: PetId | undefined,
  subpath: string,
): WriteHeaders | undefined {
  const key = idempotencyKeyOf(ctx.req.headers['idempotency-key']);
  if (!key.ok) {
    sendError(ctx, 'invalid_idempotency_key', key.error);
    return undefined;
  }
  const actor = ctx.state.keyId;
  // The guard lets no request without a key reach a write; one that did would be a bug.
  if (actor === undefined) throw new Error('a stock write reached without an authenticated key');
  if (key.value === undefined) return { actor };
  const canonical = path ?? `${API_BASE_PATH}/inventory/${petId}${subpath}`;
  // A string: jsonBodyOf has parsed it.
  const fingerprint = requestFingerprint(ctx.method, canonical, String(ctx.request.rawBody));
  return { actor, idempotency: { key: key.value, fingerprint } };
}

/**
 * The versions the request's If-Match names (`{}` for none), or `undefined` once a 428 (If-Match
 * required and missing) or a 400 (malformed) has been sent.
 */
export function conditionOf(
  ctx: RouteContext,
  requireIfMatch: boolean,
): { readonly ifVersion?: readonly number[] } | undefined {
  const ifMatch = ctx.req.headers['if-match'];
  if (ifMatch === undefined && requireIfMatch) {
    sendError(ctx, 'precondition_required', IF_MATCH_REQUIRED);
    return undefined;
  }
  const condition = ifVersionOf(ifMatch);
  if (typeof condition !== 'string') return condition;
  sendError(ctx, 'invalid_if_match', condition);
  return undefined;
}

/**
 * Answers a refused stock write: its Error body (and `extraJson`, see sendError), marked when replayed;
 * `before` sets what else the answer carries.
 */
export function sendWriteFailure(
  ctx: RouteContext,
  error: StockWriteFailure,
  before?: () => void,
  extraJson?: string,
): void {
  releaseHeldHeaders(ctx);
  if ('refusals' in error) markReplay(ctx, error.replayed);
  before?.();
  sendError(ctx, error.code, error.message, extraJson);
}

/**
 * Answers what a write of one pet decided, first time or replayed alike: the entry with its new ETag,
 * written at once with the headers held for the answer (answerWithHeld), or the refusal (a 412 with
 * the current ETag).
 */
export function sendOnePetWrite(ctx: RouteContext, written: OnePetWriteResult): void {
  if (written.ok) {
    if (written.value.replayed) holdHeader(ctx, 'Idempotent-Replayed', 'true');
    holdHeader(ctx, 'ETag', versionTag(written.value.entry.version));
    const json = itemJson(written.value.entry.item);
    holdHeader(ctx, 'Content-Type', JSON_CONTENT_TYPE);
    holdHeader(ctx, 'Content-Length', String(Buffer.byteLength(json)));
    answerWithHeld(ctx, 200, json);
    return;
  }
  const error = written.error;
  sendWriteFailure(ctx, error, () => {
    const refusal = 'refusals' in error ? error.refusals[0] : undefined;
    if (refusal?.code === 'precondition_failed') ctx.res.setHeader('ETag', versionTag(refusal.currentVersion));
  });
}
