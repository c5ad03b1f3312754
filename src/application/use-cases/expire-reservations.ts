import type { Clock } from '../ports/clock.js';
import type { InventoryRepository } from '../ports/inventory-repository.js';

/** How many pets with lapsed holds one look of the store finds: small, so no look reads the store for long. */
export const EXPIRE_BATCH = 200;

/**
 * Marks the held reservations whose time is up as expired, one pet per store transaction, finding the
 * pets a small batch at a time: the one expiry loop of every store, which only find the pets and mark
 * one pet's lapse as the core decides it. What is reserved never waits for it (an expired hold stops
 * counting at once); it keeps the held rows, which every read of a pet with holds looks at, few.
 */
export class ExpireReservations {
  constructor(
    private readonly inventory: InventoryRepository,
    private readonly clock: Clock,
  ) {}

  /** Resolves to how many reservations were marked expired. */
  async execute(): Promise<number> {
    const nowMs = this.clock.nowMs();
    let total = 0;
    for (;;) {
      const pets = await this.inventory.petsWithLapsedHolds(nowMs, EXPIRE_BATCH);
      let marked = 0;
      for (const petId of pets) marked += await this.inventory.markLapse(petId, nowMs);
      total += marked;
      // A batch that marked nothing made no progress: the next run looks again, rather than this one forever.
      if (pets.length < EXPIRE_BATCH || marked === 0) return total;
    }
  }
}
