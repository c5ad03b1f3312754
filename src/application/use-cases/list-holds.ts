import type { PetId } from '../../domain/pet-id.js';
import type { KeyedReservation } from '../../domain/reservation.js';
import type { Clock } from '../ports/clock.js';
import type { InventoryRepository } from '../ports/inventory-repository.js';

export interface ListHoldsInput {
  /** Only the holds of this pet. */
  readonly petId?: PetId;
  /** Only the holds this key made. */
  readonly keyId?: string;
  /** How many a page holds: 1,000 when absent. */
  readonly pageSize?: number;
}

/** How many holds a page of the listing reads unless asked. */
export const HOLDS_PAGE = 1_000;

/**
 * Lists the reservations still held (of a pet, of a key, or every one), soonest to lapse first, a page
 * at a time: an operator sees what is set aside, and by whom, however many holds there are.
 */
export class ListHolds {
  constructor(
    private readonly inventory: InventoryRepository,
    private readonly clock: Clock,
  ) {}

  async *execute(input: ListHoldsInput = {}): AsyncGenerator<readonly KeyedReservation[]> {
    const nowMs = this.clock.nowMs();
    const limit = input.pageSize ?? HOLDS_PAGE;
    let after: KeyedReservation | undefined;
    for (;;) {
      const page = await this.inventory.listHolds({
        nowMs,
        limit,
        ...(input.petId === undefined ? {} : { petId: input.petId }),
        ...(input.keyId === undefined ? {} : { keyId: input.keyId }),
        ...(after === undefined ? {} : { after: { expiresAtMs: after.expiresAtMs, id: after.id } }),
      });
      if (page.length > 0) yield page;
      if (page.length < limit) return;
      after = page[page.length - 1];
    }
  }
}
