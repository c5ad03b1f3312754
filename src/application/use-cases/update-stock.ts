import type { PetId } from '../../domain/pet-id.js';
import type { Quantity } from '../../domain/quantity.js';
import { ok, type Result } from '../../domain/result.js';
import { type OrderValue, orderValueOf, stockOrder } from '../../domain/stock-command.js';
import type { StockWriteFailure } from '../../domain/stock-outcome.js';
import type { InventoryEntry } from '../../domain/stock-write.js';
import type { StockCommandRunner, StockWriteRequest } from '../stock-command-runner.js';

/** What every write of one pet takes besides its order's own value. */
export interface OnePetWriteInput {
  readonly petId: PetId;
  /** Who makes the change (an API key id), for the stock-change record; also the idempotency scope. */
  readonly actor: string;
  /** Write only when the entry is at one of these versions (If-Match); any version when absent. */
  readonly ifVersion?: readonly number[];
  /** Why, kept with the change (see `isReason`). */
  readonly reason?: string;
  /** Makes a retry safe (see StockWriteRequest). */
  readonly idempotency?: StockWriteRequest['idempotency'];
}

export interface UpdateStockInput extends OnePetWriteInput {
  readonly quantity: Quantity;
}

/** The entry as the write left it, and whether this answer is the replay of an earlier one. */
export interface UpdatedStock {
  readonly entry: InventoryEntry;
  readonly replayed: boolean;
}

export type OnePetWriteResult = Result<UpdatedStock, StockWriteFailure>;

/** Runs a write of one pet: `order` is its kind and value, `input` the rest; answers the one entry it left. */
export async function writeOnePet(
  writes: StockCommandRunner,
  order: OrderValue,
  input: OnePetWriteInput,
): Promise<OnePetWriteResult> {
  const made = stockOrder(order.kind, orderValueOf(order), input);
  if (!made.ok) throw new RangeError(made.error);
  const result = await writes.run({
    orders: [made.value],
    actor: input.actor,
    idempotency: input.idempotency,
  });
  if (!result.ok) return result;
  const [written] = result.value.entries;
  if (written === undefined || result.value.entries.length !== 1)
    throw new Error('a write of one pet writes one entry');
  const { petId, quantity, status } = written.change.after;
  const item = { petId, quantity, status, reserved: written.reserved };
  return ok({ entry: { item, version: written.version }, replayed: result.value.replayed });
}

/**
 * updateInventory: sets the stock of one pet, moves its status by the domain rule and records the
 * change, in one write of the store. With `ifVersion` the write is conditional; with an idempotency key
 * it happens at most once however often it is retried.
 */
export class UpdateStock {
  constructor(private readonly writes: StockCommandRunner) {}

  execute(input: UpdateStockInput): Promise<OnePetWriteResult> {
    return writeOnePet(this.writes, { kind: 'set', quantity: input.quantity }, input);
  }
}
