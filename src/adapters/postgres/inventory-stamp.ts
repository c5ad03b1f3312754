import type { PetId } from '../../domain/pet-id.js';
import type { Queryable } from './postgres-database.js';

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
