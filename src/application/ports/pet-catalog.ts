import type { DomainError } from '../../domain/errors.js';
import type { Pet } from '../../domain/pet.js';
import type { PetId } from '../../domain/pet-id.js';
import type { PetStatus } from '../../domain/pet-status.js';
import type { Quantity } from '../../domain/quantity.js';
import type { Result } from '../../domain/result.js';

/** A pet to add, with its opening stock. */
export interface NewPet {
  readonly id: PetId;
  readonly name: string;
  readonly quantity: Quantity;
  readonly status: PetStatus;
  readonly category?: Pet['category'];
  readonly photoUrls?: Pet['photoUrls'];
  readonly tags?: Pet['tags'];
}

/** The store's pets. Adding a pet also starts its inventory entry. */
export interface PetCatalog {
  get(id: PetId): Promise<Pet | undefined>;

  /**
   * Adds every pet or none: an id already stored, or given twice, adds nothing and names the id.
   * Resolves to the number of pets added.
   */
  addAll(pets: readonly NewPet[]): Promise<Result<number, DomainError<'duplicate_pet'>>>;
}
