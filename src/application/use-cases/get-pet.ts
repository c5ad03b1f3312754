import { type DomainError, domainError } from '../../domain/errors.js';
import type { Pet } from '../../domain/pet.js';
import type { PetId } from '../../domain/pet-id.js';
import { fail, ok, type Result } from '../../domain/result.js';
import type { PetCatalog } from '../ports/pet-catalog.js';

/** getPetById (deprecated in the API): one pet. */
export class GetPet {
  constructor(private readonly pets: PetCatalog) {}

  async execute(input: { readonly petId: PetId }): Promise<Result<Pet, DomainError<'pet_not_found'>>> {
    const pet = await this.pets.get(input.petId);
    if (pet === undefined) return fail(domainError('pet_not_found', `no pet has id ${input.petId}`));
    return ok(pet);
  }
}
