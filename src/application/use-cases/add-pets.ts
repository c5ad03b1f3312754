import type { Result } from '../../domain/result.js';
import type { DuplicatePet, NewPet, PetCatalog } from '../ports/pet-catalog.js';

/**
 * Adds pets with their opening stock, all or none: an array (`pets add`, the development seed), or a
 * stream of batches read from a file (`pets import`), which is never held in memory whole.
 */
export class AddPets {
  constructor(private readonly pets: PetCatalog) {}

  execute(pets: readonly NewPet[] | AsyncIterable<readonly NewPet[]>): Promise<Result<number, DuplicatePet>> {
    return Symbol.asyncIterator in pets ? this.pets.addStream(pets) : this.pets.addAll(pets);
  }
}
