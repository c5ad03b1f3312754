import type { DomainError } from './errors.js';
import type { PetId } from './pet-id.js';
import { QUANTITY_MAX, type Quantity } from './quantity.js';
import { fail, ok, type Result } from './result.js';
import type { StockChange } from './stock-change.js';

/**
 * An entry as a write left it: the change recorded, the entry's new version, and what held
 * reservations set aside of it (which a set or an adjustment leaves as it found it).
 */
export interface WrittenEntry {
  readonly change: StockChange;
  readonly version: number;
  readonly reserved: Quantity;
}

/** Why one order of a command was refused; `index` is its place in the command. */
export type StockRefusal =
  | { readonly index: number; readonly code: 'pet_not_found'; readonly petId: PetId }
  | {
      readonly index: number;
      readonly code: 'precondition_failed';
      readonly petId: PetId;
      readonly currentVersion: number;
    }
  /**
   * The adjustment would take more than is available: the stock below what is reserved, or below 0
   * (`quantity` is the stock it found; `reserved`, absent in outcomes stored before reservations, 0).
   */
  | {
      readonly index: number;
      readonly code: 'insufficient_stock';
      readonly petId: PetId;
      readonly quantity: number;
      readonly delta: number;
      readonly reserved?: number;
    }
  /** The set would leave less on hand (`quantity`, asked) than held reservations set aside (`reserved`). */
  | {
      readonly index: number;
      readonly code: 'quantity_below_reserved';
      readonly petId: PetId;
      readonly quantity: number;
      readonly reserved: number;
    }
  /** The adjustment would take the stock above QUANTITY_MAX. */
  | {
      readonly index: number;
      readonly code: 'quantity_limit_exceeded';
      readonly petId: PetId;
      readonly quantity: number;
      readonly delta: number;
    };

export type StockRefusalCode = StockRefusal['code'];

/** The data each kind of refusal carries besides its index, code and pet, as numbers. */
const REFUSAL_DATA: Readonly<Record<StockRefusalCode, readonly string[]>> = {
  pet_not_found: [],
  precondition_failed: ['currentVersion'],
  insufficient_stock: ['quantity', 'delta'],
  quantity_limit_exceeded: ['quantity', 'delta'],
  quantity_below_reserved: ['quantity', 'reserved'],
};

/** Every code a refusal of an order can carry. */
export const STOCK_REFUSAL_CODES = Object.keys(REFUSAL_DATA) as readonly StockRefusalCode[];

/** Whether `value` is a refusal as the core makes it: for a stored outcome read back. */
export function isStockRefusal(value: { readonly code?: unknown }): value is StockRefusal {
  const record = value as Readonly<Record<string, unknown>>;
  const data = Object.hasOwn(REFUSAL_DATA, String(record.code))
    ? REFUSAL_DATA[record.code as StockRefusalCode]
    : undefined;
  return (
    data !== undefined &&
    Number.isSafeInteger(record.index) &&
    typeof record.petId === 'bigint' &&
    data.every((field) => Number.isSafeInteger(record[field]))
  );
}

/**
 * What a write answered, as it is stored with an idempotency claim and replayed to a retry: every
 * entry written (in the command's order), or every order refused (and nothing written).
 */
export type StockOutcome =
  | { readonly kind: 'written'; readonly entries: readonly WrittenEntry[] }
  | { readonly kind: 'refused'; readonly refusals: readonly StockRefusal[] };

/** A write that was done, and whether this answer is the replay of an earlier one. */
export interface CommittedStock {
  readonly entries: readonly WrittenEntry[];
  readonly replayed: boolean;
}

/**
 * Why a write did not happen: its orders were refused (an outcome, stored with a claim and replayed
 * like a change; `code` and `message` are the first refusal's), or its idempotency claim was refused.
 */
export type StockWriteFailure =
  | (DomainError<StockRefusalCode> & { readonly refusals: readonly StockRefusal[]; readonly replayed: boolean })
  /** The claim's key was used before on another request (another fingerprint). */
  | DomainError<'idempotency_key_reused'>
  /** The claim's key is held by a write still under way. */
  | DomainError<'idempotency_key_in_use'>;

/** The answer of every stock write, from the store to the HTTP edge. */
export type StockWriteResult = Result<CommittedStock, StockWriteFailure>;

/** What a person reads about a refusal. */
export function refusalMessage(refusal: StockRefusal): string {
  switch (refusal.code) {
    case 'pet_not_found':
      return `no pet has id ${refusal.petId}`;
    case 'precondition_failed':
      return `the stock of pet ${refusal.petId} is at version ${refusal.currentVersion}, not the one If-Match names; read it again`;
    case 'insufficient_stock': {
      const reserved = refusal.reserved ?? 0;
      if (reserved === 0) {
        return `pet ${refusal.petId} has ${refusal.quantity} in stock: a delta of ${refusal.delta} would take it below 0`;
      }
      return (
        `pet ${refusal.petId} has ${refusal.quantity} in stock, ${reserved} of it reserved: a delta of ` +
        `${refusal.delta} would take more than the ${refusal.quantity - reserved} available`
      );
    }
    case 'quantity_below_reserved':
      return `pet ${refusal.petId} has ${refusal.reserved} reserved: its stock cannot be set to ${refusal.quantity}, below that`;
    case 'quantity_limit_exceeded':
      return `pet ${refusal.petId} has ${refusal.quantity} in stock: a delta of ${refusal.delta} would take it above ${QUANTITY_MAX}`;
  }
}

/** The answer an outcome gives, first time or replayed. */
export function resultOf(outcome: StockOutcome, replayed: boolean): StockWriteResult {
  if (outcome.kind === 'written') return ok({ entries: outcome.entries, replayed });
  const first = outcome.refusals[0];
  if (first === undefined) throw new Error('a refused outcome names at least one refusal');
  return fail({ code: first.code, message: refusalMessage(first), refusals: outcome.refusals, replayed });
}

export const KEY_REUSED: DomainError<'idempotency_key_reused'> = {
  code: 'idempotency_key_reused',
  message: 'this Idempotency-Key was already used on another request; use a new key for a new request',
};

export const KEY_IN_USE: DomainError<'idempotency_key_in_use'> = {
  code: 'idempotency_key_in_use',
  message: 'a request with this Idempotency-Key is still being processed; retry once it has been answered',
};
