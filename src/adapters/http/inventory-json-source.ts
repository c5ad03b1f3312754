import type { InventoryQuery } from '../../application/ports/inventory-repository.js';

/**
 * A store that writes the inventory list's JSON itself, for long lists: building the text where the
 * rows are (SQLite's `string_agg`) spares making a value for every field of every pet in JavaScript,
 * which was most of the time a list of a million pets took. Optional: the list is written from the
 * items of `ListInventory` when the store offers none.
 */
export interface InventoryJsonSource {
  /**
   * The entries `query` selects, in the order and chunks `InventoryRepository.list` gives them, each
   * chunk as its items' JSON exactly as `itemJson` writes them, comma-separated, without brackets. No
   * chunk is empty. A stored entry that is not a valid InventoryItem fails the listing.
   */
  listJson(query?: InventoryQuery): AsyncIterable<string>;
}

/** The store as an InventoryJsonSource, when it is one. */
export const inventoryJsonSourceOf = (store: object): InventoryJsonSource | undefined =>
  typeof (store as Partial<InventoryJsonSource>).listJson === 'function' ? (store as InventoryJsonSource) : undefined;
