import type { PetId } from '../../domain/pet-id.js';
import type { Queryable } from './postgres-database.js';

/** How many counters the writes are spread over (the rows of `inventory_stamps`). */
const STRIPES = 64n;

/** The counter a write of `petId` moves: writes of different pets mostly move different rows. */
export const stripeOf = (petId: PetId): number => Number(((petId % STRIPES) + STRIPES) % STRIPES);

/**
 * The one update of the list's stamp: adds `count` writes (an SQL expression) to the counter of
 * `stripe` (a parameter). Every write moves one counter, never two, so that two writes never lock two
 * counters in opposite orders; it commits or rolls back with the write.
 */
export const countWrites = (count: string, stripe: string): string =>
  `UPDATE inventory_stamps SET writes = writes + ${count} WHERE stripe = ${stripe}::smallint`;

/**
 * Counts a write to `pets` in the caller's transaction; called late in it, so that the counter's row
 * lock is held briefly.
 */
export async function countWrite(tx: Queryable, petId: PetId): Promise<void> {
  await tx.run(countWrites('1', '$1'), [stripeOf(petId)]);
}
