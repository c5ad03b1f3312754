import type { PetId } from '../../domain/pet-id.js';
import type { Quantity } from '../../domain/quantity.js';
import { fail, ok, type Result } from '../../domain/result.js';
import { type OrderValue, orderValueOf, stockOrder } from '../../domain/stock-command.js';
import type { StockRefusal, StockWriteFailure, StockWriteResult } from '../../domain/stock-outcome.js';
import type { InventoryEntry } from '../../domain/stock-write.js';
import type { StockCommandRunner, StockWriteRequest } from '../stock-command-runner.js';

/**
 * Write only when the entry is still at a version read before: `expectedVersion` names it (or, as
 * If-Match may, several); `ifVersion` is its 1.0 name, always a list. Any version when both are absent.
 */
export interface ExpectedVersion {
  /** Write only when the entry is at this version (or at one of these); any version when absent. */
  readonly expectedVersion?: number | readonly number[];
  /**
   * Write only when the entry is at one of these versions (If-Match).
   * @deprecated Use `expectedVersion` (one version, or a list); giving both throws a RangeError.
   */
  readonly ifVersion?: readonly number[];
}

/** The versions a write is conditional on, from either name; `undefined`: any version. */
export function expectedVersionsOf(input: ExpectedVersion): readonly number[] | undefined {
  const { expectedVersion, ifVersion } = input;
  if (expectedVersion === undefined) return ifVersion;
  if (ifVersion !== undefined) throw new RangeError('give expectedVersion or ifVersion (its 1.0 name), not both');
  return typeof expectedVersion === 'number' ? [expectedVersion] : expectedVersion;
}

/** What every write of one pet takes besides its order's own value. */
export interface OnePetWriteInput extends ExpectedVersion {
  readonly petId: PetId;
  /** Who makes the change (an API key id), for the stock-change record; also the idempotency scope. */
  readonly actor: string;
  /** Why, kept with the change (see `isReason`). */
  readonly reason?: string;
  /** Makes a retry safe (see StockWriteRequest). */
  readonly idempotency?: StockWriteRequest['idempotency'];
}

export interface UpdateStockInput extends OnePetWriteInput {
  /** The new stock: a whole number from 0 to QUANTITY_MAX (a `quantity(n)` is one too). */
  readonly quantity: Quantity | number;
}

/** The entry as the write left it, and whether this answer is the replay of an earlier one. */
export interface UpdatedStock {
  readonly entry: InventoryEntry;
  readonly replayed: boolean;
}

/**
 * Why a write of one pet did not happen: as for any stock write, with its one refusal as `refusal`
 * (`refusals`, the batch's shape, still holds it, at index 0).
 */
export type OnePetWriteFailure =
  | (Omit<Extract<StockWriteFailure, { readonly refusals: unknown }>, 'refusals'> & {
      /** Why the write was refused. */
      readonly refusal: StockRefusal;
      /** @deprecated The batch's shape: `[refusal]`, its index 0. Read `refusal`. */
      readonly refusals: readonly StockRefusal[];
    })
  | Exclude<StockWriteFailure, { readonly refusals: unknown }>;

export type OnePetWriteResult = Result<UpdatedStock, OnePetWriteFailure>;

/** The one entry a write of one pet left, or why it did not happen, from the runner's answer. */
function onePetResultOf(result: StockWriteResult): OnePetWriteResult {
  if (!result.ok) {
    const { error } = result;
    if (!('refusals' in error)) return fail(error);
    const [refusal] = error.refusals;
    if (refusal === undefined) throw new Error('a refused write names its refusal');
    return fail({ ...error, refusal });
  }
  const { entries, replayed } = result.value;
  const written = entries[0];
  if (written === undefined || entries.length !== 1) throw new Error('a write of one pet writes one entry');
  const { petId, quantity, status } = written.change.after;
  const item = { petId, quantity, status, reserved: written.reserved };
  return ok({ entry: { item, version: written.version }, replayed });
}

/**
 * Runs a write of one pet: `order` is its kind and value, `input` the rest; answers the one entry it
 * left. Not async: the answer is read in one reaction to the runner's promise, a function made once,
 * with no frame of this function kept while the write is out.
 */
export function writeOnePet(
  writes: StockCommandRunner,
  order: OrderValue,
  input: OnePetWriteInput,
): Promise<OnePetWriteResult> {
  try {
    const made = stockOrder(order.kind, orderValueOf(order), {
      petId: input.petId,
      ifVersion: expectedVersionsOf(input),
      reason: input.reason,
    });
    if (!made.ok) throw new RangeError(made.error);
    return writes
      .run({ orders: [made.value], actor: input.actor, idempotency: input.idempotency })
      .then(onePetResultOf);
  } catch (error) {
    // What throws here (an input refused: both names of the versions given) rejects the promise, as
    // it did when this was an async function.
    return Promise.reject(error);
  }
}

/**
 * updateInventory: sets the stock of one pet, moves its status by the domain rule and records the
 * change, in one write of the store. With `ifVersion` the write is conditional; with an idempotency key
 * it happens at most once however often it is retried.
 */
export class UpdateStock {
  constructor(private readonly writes: StockCommandRunner) {}

  execute(input: UpdateStockInput): Promise<OnePetWriteResult> {
    // A plain number is checked as the order is made (a RangeError when it is no stock count).
    return writeOnePet(this.writes, { kind: 'set', quantity: input.quantity as Quantity }, input);
  }
}
