import { inventoryItem } from '../../domain/inventory-item.js';
import type { PetStatus } from '../../domain/pet-status.js';
import type { InventoryEntry } from '../../domain/stock-write.js';

/**
 * A row of `pets` with its version and what it has reserved, read as an array (cheaper than an object
 * with named keys).
 */
export type EntryRow = readonly [id: bigint, quantity: bigint, status: string, version: bigint, reserved: bigint];

/** The row's entry; the domain re-checks it (the status is cast only for the type), so a corrupt row throws. */
export const entryOfRow = (row: EntryRow): InventoryEntry => ({
  item: inventoryItem(row[0], Number(row[1]), row[2] as PetStatus, Number(row[4])),
  version: Number(row[3]),
});
