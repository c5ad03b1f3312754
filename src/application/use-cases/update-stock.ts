import type { PetId } from '../../domain/pet-id.js';
import type { Quantity } from '../../domain/quantity.js';
import { ok, type Result } from '../../domain/result.js';
import type { StockWriteFailure, WrittenEntry } from '../../domain/stock-outcome.js';
import type { InventoryEntry } from '../../domain/stock-write.js';
import type { StockCommandRunner, StockWriteRequest } from '../stock-command-runner.js';

export interface UpdateStockInput {
  readonly petId: PetId;
  readonly quantity: Quantity;
  /** Who makes the change (an API key id), for the stock-change record; also the idempotency scope. */
  readonly actor: string;
  /** Write only when the entry is at one of these versions (If-Match); any version when absent. */
  readonly ifVersion?: readonly number[];
  /** Why, kept with the change (see `isReason`). */
  readonly reason?: string;
  /** Makes a retry safe (see StockWriteRequest). */
  readonly idempotency?: StockWriteRequest['idempotency'];
}

/** The entry as the write left it, and whether this answer is the replay of an earlier one. */
export interface UpdatedStock {
  readonly entry: InventoryEntry;
  readonly replayed: boolean;
}

/** The one entry a write of one pet left. */
export function entryOfSingle(entries: readonly WrittenEntry[]): InventoryEntry {
  const [written] = entries;
  if (written === undefined || entries.length !== 1) throw new Error('a write of one pet writes one entry');
  return { item: written.change.after, version: written.version };
}

/**
 * updateInventory: sets the stock of one pet, moves its status by the domain rule and records the
 * change, in one write of the store. With `ifVersion` the write is conditional; with an idempotency key
 * it happens at most once however often it is retried.
 */
export class UpdateStock {
  constructor(private readonly writes: StockCommandRunner) {}

  async execute(input: UpdateStockInput): Promise<Result<UpdatedStock, StockWriteFailure>> {
    const { petId, quantity, ifVersion, reason, actor, idempotency } = input;
    const result = await this.writes.run({
      orders: [
        {
          kind: 'set',
          petId,
          quantity,
          ...(ifVersion === undefined ? {} : { ifVersion }),
          ...(reason === undefined ? {} : { reason }),
        },
      ],
      actor,
      ...(idempotency === undefined ? {} : { idempotency }),
    });
    if (!result.ok) return result;
    return ok({ entry: entryOfSingle(result.value.entries), replayed: result.value.replayed });
  }
}
