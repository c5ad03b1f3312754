import type { InventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { StockCommand } from '../../domain/stock-command.js';
import type { StockWriteResult } from '../../domain/stock-outcome.js';
import type { InventoryEntry } from '../../domain/stock-write.js';

export interface InventoryQuery {
  /** Only entries whose petId is greater than this one (keyset paging). */
  readonly after?: PetId;
  /** At most this many entries in all; every entry when absent. */
  readonly limit?: number;
}

/** Where stock levels live. */
export interface InventoryRepository {
  /**
   * Every entry matching `query`, ordered by petId ascending, in chunks. A store is never held between
   * two chunks, so a slow reader of a long list does not block writers.
   */
  list(query?: InventoryQuery): AsyncIterable<readonly InventoryItem[]>;

  /** One entry with its version, or `undefined` when no pet has that id. */
  get(petId: PetId): Promise<InventoryEntry | undefined>;

  /**
   * A token of the stored entries: it changes whenever any entry may have changed, here or in another
   * process, and never repeats across restarts; two equal stamps mean the same list. It may change when
   * nothing did (a reader then only redoes work), never the other way round. Read it before listing: a
   * list read after it is at least as new as it.
   */
  stamp(): Promise<string>;

  /**
   * Does one stock command in one transaction: reads the entries it names and its claim, asks the
   * core's decision (`decideStockWrite`), and applies what it answers: the entries at their next
   * versions, their changes recorded and, with a claim, the outcome stored. So no concurrent write is
   * lost, no change goes unrecorded, no retry writes twice, and a command of several pets is applied
   * whole or not at all.
   */
  write(command: StockCommand): Promise<StockWriteResult>;

  /**
   * Forgets at most `max` stored outcomes that expired at `nowMs` or before; resolves to how many. Kept
   * small per call so that purging never holds the store for long.
   */
  forgetExpiredOutcomes(nowMs: number, max: number): Promise<number>;
}
