import type { PetCatalog, StockedPet } from '../ports/pet-catalog.js';

/** Hands out every pet with its stock, by id, in chunks (`pets export`): what AddPets takes back. */
export class ExportPets {
  constructor(private readonly pets: PetCatalog) {}

  execute(): AsyncIterable<readonly StockedPet[]> {
    return this.pets.listWithStock();
  }
}
