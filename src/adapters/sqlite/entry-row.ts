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

/**
 * A row of `pets` as a write reads it, by the pet's id: its counts as numbers (read without safe
 * integers: each bigint was an object of its own, and `entryOfRow` made a number of it at once) and
 * without the id, which the write already has.
 */
export type WriteEntryRow = readonly [quantity: number, status: string, version: number, reserved: number];

/** The write row's entry, checked by the domain as `entryOfRow`'s is. */
export const entryOfWriteRow = (petId: bigint, row: WriteEntryRow): InventoryEntry => ({
  item: inventoryItem(petId, row[0], row[1] as PetStatus, row[3]),
  version: row[2],
});
