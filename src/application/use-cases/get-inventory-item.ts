import { type DomainError, domainError } from '../../domain/errors.js';
import type { PetId } from '../../domain/pet-id.js';
import { fail, ok, type Result } from '../../domain/result.js';
import type { InventoryEntry } from '../../domain/stock-write.js';
import type { InventoryRepository } from '../ports/inventory-repository.js';

/** getInventoryItem: one pet's stock with its version, which a conditional update names. */
export class GetInventoryItem {
  constructor(private readonly inventory: InventoryRepository) {}

  async execute(input: { readonly petId: PetId }): Promise<Result<InventoryEntry, DomainError<'pet_not_found'>>> {
    const entry = await this.inventory.get(input.petId);
    if (entry === undefined) return fail(domainError('pet_not_found', `no pet has id ${input.petId}`));
    return ok(entry);
  }
}
