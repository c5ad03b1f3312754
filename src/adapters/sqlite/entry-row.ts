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
 * without the id, which the write already has. An object, not a raw array: better-sqlite3 (12, on
 * Node 20) makes a raw row as an empty array set index by index, whose backing store is grown to 17
 * slots, 216 bytes a row of four against 88 for the object it makes at once with its keys.
 */
export interface WriteEntryRow {
  readonly quantity: number;
  readonly status: string;
  readonly version: number;
  readonly held: number;
}

/** The write row's entry, checked by the domain as `entryOfRow`'s is. */
export const entryOfWriteRow = (petId: bigint, row: WriteEntryRow): InventoryEntry => ({
  item: inventoryItem(petId, row.quantity, row.status as PetStatus, row.held),
  version: row.version,
});
