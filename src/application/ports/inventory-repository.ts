import type { InventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { StockChange } from '../../domain/stock-change.js';

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

  /**
   * A token of the stored entries, cheap enough to read on every request: it changes whenever any entry
   * may have changed, by this process or another; two equal revisions mean the list is the same. It may
   * change when nothing did (a caller then only redoes work), never the other way round. Read it before
   * listing: a list read after it is at least as new as it.
   */
  revision(): string;

  /**
   * Reads the entry of `petId`, applies `change` to it, stores the result and records the change,
   * all in one transaction: no concurrent update is lost and no change goes unrecorded.
   * Resolves to `undefined` when no pet has that id.
   */
  update(
    petId: PetId,
    change: (current: InventoryItem) => InventoryItem,
    actor: string,
    atMs: number,
  ): Promise<StockChange | undefined>;
}
