import type { InventoryItem } from './inventory-item.js';

/** One recorded change of stock: who set what, when, and what it was before. */
export interface StockChange {
  /**
   * The change's id: an int64 that grows with every change recorded, so it orders a pet's history and
   * pages it (`before`).
   */
  readonly id: bigint;
  readonly before: InventoryItem;
  readonly after: InventoryItem;
  /** The id of the API key (or the admin tool) that made the change. */
  readonly actor: string;
  /** Unix milliseconds. */
  readonly atMs: number;
}
