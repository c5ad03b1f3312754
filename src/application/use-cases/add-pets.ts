import type { DomainError } from '../../domain/errors.js';
import type { Result } from '../../domain/result.js';
import type { NewPet, PetCatalog } from '../ports/pet-catalog.js';

/** Adds pets with their opening stock, all or none (`pets add`, `pets import`, the development seed). */
export class AddPets {
  constructor(private readonly pets: PetCatalog) {}

  execute(pets: readonly NewPet[]): Promise<Result<number, DomainError<'duplicate_pet'>>> {
    return this.pets.addAll(pets);
  }
}
