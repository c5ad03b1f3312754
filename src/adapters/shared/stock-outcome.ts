import type { IdempotencyClaim, StockWrite, StockWriteResult } from '../../application/ports/inventory-repository.js';
import { type InventoryItem, inventoryItem } from '../../domain/inventory-item.js';
import { isPetStatus } from '../../domain/pet-status.js';
import { fail, ok } from '../../domain/result.js';
import type { StockChange } from '../../domain/stock-change.js';
import type { StockWritePlan } from '../../domain/stock-write.js';

/**
 * The outcome of a stock write as a store keeps it for an idempotency claim: what the first request was
 * answered, so that a retry is answered the same. Every store shares these helpers, so none can replay
 * differently.
 */
export type StockOutcome =
  | { readonly kind: 'changed'; readonly change: StockChange; readonly version: number }
  | { readonly kind: 'pet_not_found' }
  | { readonly kind: 'version_mismatch'; readonly currentVersion: number };

/** A stored claim: the request it was made for, its outcome, and when it may be forgotten. */
export interface StoredClaim {
  readonly fingerprint: string;
  readonly expiresAtMs: number;
  readonly outcome: StockOutcome;
}

/** The outcome of a plan that refused, or of a write recorded as change `changeId`. */
export function outcomeOf(plan: StockWritePlan, command: StockWrite, changeId: bigint | undefined): StockOutcome {
  if (plan.kind !== 'write') return plan;
  if (changeId === undefined) throw new Error('a write that changed stock must name its change id');
  const change: StockChange = {
    id: changeId,
    before: plan.before,
    after: plan.after,
    actor: command.actor,
    atMs: command.atMs,
  };
  return { kind: 'changed', change, version: plan.version };
}

/** The port's answer for an outcome, first-time or replayed. */
export function resultOf(outcome: StockOutcome, replayed: boolean): StockWriteResult {
  switch (outcome.kind) {
    case 'changed':
      return ok({ change: outcome.change, version: outcome.version, replayed });
    case 'pet_not_found':
      return fail({ code: 'pet_not_found', replayed });
    case 'version_mismatch':
      return fail({ code: 'version_mismatch', currentVersion: outcome.currentVersion, replayed });
  }
}

/**
 * What a claim finds stored at `nowMs`: nothing usable (none, or expired: the write goes ahead and
 * stores its own), the replay of the first outcome, or a refusal when the key named another request.
 */
export function answerFromClaim(
  stored: StoredClaim | undefined,
  claim: IdempotencyClaim,
  nowMs: number,
): StockWriteResult | undefined {
  if (stored === undefined || stored.expiresAtMs <= nowMs) return undefined;
  if (stored.fingerprint !== claim.fingerprint) return fail({ code: 'idempotency_key_reused' });
  return resultOf(stored.outcome, true);
}

// Ids travel as decimal strings: JSON numbers would round them past 2^53.
interface ChangeJson {
  readonly id: string;
  readonly petId: string;
  readonly before: readonly [number, string];
  readonly after: readonly [number, string];
  readonly actor: string;
  readonly atMs: number;
}

type OutcomeJson =
  | { readonly kind: 'changed'; readonly change: ChangeJson; readonly version: number }
  | { readonly kind: 'pet_not_found' }
  | { readonly kind: 'version_mismatch'; readonly currentVersion: number };

/** The outcome as JSON text, for stores that keep it in a column. */
export function encodeOutcome(outcome: StockOutcome): string {
  if (outcome.kind !== 'changed') return JSON.stringify(outcome);
  const { change } = outcome;
  const json: OutcomeJson = {
    kind: 'changed',
    change: {
      id: String(change.id),
      petId: String(change.after.petId),
      before: [change.before.quantity, change.before.status],
      after: [change.after.quantity, change.after.status],
      actor: change.actor,
      atMs: change.atMs,
    },
    version: outcome.version,
  };
  return JSON.stringify(json);
}

function itemOf(petId: bigint, [quantity, status]: readonly [number, string]): InventoryItem {
  if (!isPetStatus(status)) throw new Error(`a stored outcome has the unknown status ${status}`);
  return inventoryItem(petId, quantity, status);
}

/** Reads back what `encodeOutcome` wrote; a corrupt record throws rather than replaying nonsense. */
export function decodeOutcome(text: string): StockOutcome {
  const parsed = JSON.parse(text) as OutcomeJson;
  switch (parsed.kind) {
    case 'pet_not_found':
      return { kind: 'pet_not_found' };
    case 'version_mismatch':
      return { kind: 'version_mismatch', currentVersion: parsed.currentVersion };
    case 'changed': {
      const petId = BigInt(parsed.change.petId);
      const change: StockChange = {
        id: BigInt(parsed.change.id),
        before: itemOf(petId, parsed.change.before),
        after: itemOf(petId, parsed.change.after),
        actor: parsed.change.actor,
        atMs: parsed.change.atMs,
      };
      return { kind: 'changed', change, version: parsed.version };
    }
    default:
      throw new Error('a stored outcome has an unknown kind');
  }
}
