import type { PetId } from '../../domain/pet-id.js';
import { prepared, type Queryable } from './postgres-database.js';

/** How many counters the writes are spread over (the rows of `inventory_stamps`). */
const STRIPES = 64n;

/** The counter a write of `petId` moves: writes of different pets mostly move different rows. */
export const stripeOf = (petId: PetId): number => Number(((petId % STRIPES) + STRIPES) % STRIPES);

/**
 * Counts a write to `pets` in the caller's transaction; called late in it, so that the counter's row
 * lock is held briefly. The count commits or rolls back with the write.
 */
export async function countWrite(tx: Queryable, petId: PetId): Promise<void> {
  await tx.run('UPDATE inventory_stamps SET writes = writes + 1 WHERE stripe = $1', [stripeOf(petId)]);
}

/**
 * The stamp of the inventory: this database's epoch and the sum of the write counters. The sum only
 * grows, and grows with every committed write, whichever instance made it; a refused or rolled-back
 * write leaves it. Read in one statement, so the counters are of one snapshot.
 */
export const STAMP = prepared(
  'inventory_stamp',
  "SELECT (SELECT epoch::text FROM inventory_epoch) || ':' || (SELECT sum(writes)::text FROM inventory_stamps)",
);
