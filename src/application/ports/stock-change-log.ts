import type { PetId } from '../../domain/pet-id.js';
import type { StockChange } from '../../domain/stock-change.js';

/** A page of one pet's history: the newest `limit` changes older than `before` (every one when absent). */
export interface StockChangePage {
  readonly before?: bigint;
  readonly limit: number;
}

/** The record of stock changes, written by `InventoryRepository.write` in its transaction. */
export interface StockChangeLog {
  /** A page of one pet's changes, newest first; `undefined` when no pet has that id. */
  history(petId: PetId, page: StockChangePage): Promise<readonly StockChange[] | undefined>;
}
