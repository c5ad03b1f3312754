import type { InventoryItem } from './inventory-item.js';

/**
 * An inventory entry with its version: 1 when the pet is added, one more with every stock change. The
 * version is what a client names in `If-Match` to say "only if nobody changed it since I looked".
 */
export interface InventoryEntry {
  readonly item: InventoryItem;
  readonly version: number;
}

/** The first version of an entry, when its pet is added. */
export const FIRST_VERSION = 1;
