import { inBatches } from '../in-batches.js';
import type { Clock } from '../ports/clock.js';
import type { InventoryRepository } from '../ports/inventory-repository.js';

/** How many expired outcomes one store call forgets: small, so no purge holds the store for long. */
export const FORGET_BATCH = 500;

/**
 * Forgets the stored outcomes of idempotent writes whose time is up, a small batch per store call, so
 * that the records of a busy day do not pile up and purging never stalls the writes beside it.
 */
export class ForgetExpiredOutcomes {
  constructor(
    private readonly inventory: InventoryRepository,
    private readonly clock: Clock,
  ) {}

  /** Resolves to how many outcomes were forgotten. */
  execute(): Promise<number> {
    const nowMs = this.clock.nowMs();
    return inBatches((max) => this.inventory.forgetExpiredOutcomes(nowMs, max), FORGET_BATCH);
  }
}
