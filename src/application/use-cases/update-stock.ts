import { type DomainError, domainError } from '../../domain/errors.js';
import { type InventoryItem, withStock } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { Quantity } from '../../domain/quantity.js';
import { fail, ok, type Result } from '../../domain/result.js';
import type { Clock } from '../ports/clock.js';
import type { InventoryRepository } from '../ports/inventory-repository.js';

export interface UpdateStockInput {
  readonly petId: PetId;
  readonly quantity: Quantity;
  /** Who makes the change (an API key id), for the stock-change record. */
  readonly actor: string;
}

/** updateInventory: sets the stock of one pet, moves its status by the domain rule, records the change. */
export class UpdateStock {
  constructor(
    private readonly inventory: InventoryRepository,
    private readonly clock: Clock,
  ) {}

  async execute(input: UpdateStockInput): Promise<Result<InventoryItem, DomainError<'pet_not_found'>>> {
    const change = await this.inventory.update(
      input.petId,
      (current) => withStock(current, input.quantity),
      input.actor,
      this.clock.nowMs(),
    );
    if (change === undefined) return fail(domainError('pet_not_found', `no pet has id ${input.petId}`));
    return ok(change.after);
  }
}
