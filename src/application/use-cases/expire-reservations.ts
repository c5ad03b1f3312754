import { inBatches } from '../in-batches.js';
import type { Clock } from '../ports/clock.js';
import type { InventoryRepository } from '../ports/inventory-repository.js';

/** How many lapsed holds one store call marks, about: small, so no purge holds the store for long. */
export const EXPIRE_BATCH = 200;

/**
 * Marks the held reservations whose time is up as expired, a small batch per store call. What is
 * reserved never waits for it (an expired hold stops counting at once); it keeps the held rows, which
 * every read of a pet with holds looks at, few.
 */
export class ExpireReservations {
  constructor(
    private readonly inventory: InventoryRepository,
    private readonly clock: Clock,
  ) {}

  /** Resolves to how many reservations were marked expired. */
  execute(): Promise<number> {
    const nowMs = this.clock.nowMs();
    return inBatches((max) => this.inventory.expireReservations(nowMs, max), EXPIRE_BATCH);
  }
}
