import type { PetId } from './pet-id.js';
import { QUANTITY_MAX, type Quantity } from './quantity.js';

/**
 * A claim on an idempotency key: the first write that carries it stores its outcome, and a retry with
 * the same scope and key gets that outcome back instead of writing again.
 */
export interface IdempotencyClaim {
  /** Whose key it is (the API key id): the same key sent by another principal is another claim. */
  readonly scope: string;
  /** The client's Idempotency-Key. */
  readonly key: string;
  /** Names the request (method, path, body bytes); the same key on another request is refused. */
  readonly fingerprint: string;
  /** Unix milliseconds after which the stored outcome may be forgotten and the key used afresh. */
  readonly expiresAtMs: number;
}

/** What every order of a command names: its pet, the versions it is conditional on, and why. */
export interface OrderOfPet {
  readonly petId: PetId;
  /** Apply only when the entry's version is one of these (If-Match, `ifVersion`); any version when absent. */
  readonly ifVersion?: readonly number[];
  /** Kept with the change in the history (see `isReason`). */
  readonly reason?: string;
}

/** Set the stock of one pet to `quantity`. */
export interface SetStockOrder extends OrderOfPet {
  readonly kind: 'set';
  readonly quantity: Quantity;
}

/** Move the stock of one pet by `delta` (see `isDelta`); a result outside 0..QUANTITY_MAX is refused. */
export interface AdjustStockOrder extends OrderOfPet {
  readonly kind: 'adjust';
  readonly delta: number;
}

/** One change a command asks of one pet's stock; `kind` names the rule that decides it. */
export type StockOrder = SetStockOrder | AdjustStockOrder;

/** An order's own value, without what every order names (its pet, versions and reason): one per kind. */
export type OrderValue = StockOrder extends infer O
  ? O extends StockOrder
    ? Omit<O, keyof OrderOfPet>
    : never
  : never;

/** Whether `value` can be an adjustment's delta: a whole number, not 0, at most QUANTITY_MAX either way. */
export const isDelta = (value: number): boolean =>
  Number.isInteger(value) && value !== 0 && Math.abs(value) <= QUANTITY_MAX;

/**
 * A stock write as plain data, so that it can cross a thread or a network: the orders (each of another
 * pet) applied all or none, as `actor`, at `atMs`. The store reads what it names, asks the core's one
 * decision (`decideStockWrite`) and applies what it answers inside its own transaction.
 */
export interface StockCommand {
  readonly orders: readonly StockOrder[];
  readonly actor: string;
  readonly atMs: number;
  readonly idempotency?: IdempotencyClaim;
}

/** The pet of a command's first order: every command names one at least. */
export function firstPetOf(command: StockCommand): PetId {
  const first = command.orders[0];
  if (first === undefined) throw new Error('a stock command names one pet at least');
  return first.petId;
}
