import type { DomainError } from '../../domain/errors.js';
import type { Pet } from '../../domain/pet.js';
import type { PetId } from '../../domain/pet-id.js';
import type { PetStatus } from '../../domain/pet-status.js';
import type { Quantity } from '../../domain/quantity.js';
import type { Result } from '../../domain/result.js';

/** A pet to add, with its opening stock. Its fields are within the domain's limits (see `pet`). */
export interface NewPet {
  readonly id: PetId;
  readonly name: string;
  readonly quantity: Quantity;
  readonly status: PetStatus;
  readonly category?: Pet['category'];
  readonly photoUrls?: Pet['photoUrls'];
  readonly tags?: Pet['tags'];
}

/** A stored pet with its stock, as an export hands it out: what `addStream` takes back. */
export interface StockedPet extends Pet {
  readonly quantity: Quantity;
}

/** A refusal of an add: an id already stored, or given twice. */
export type DuplicatePet = DomainError<'duplicate_pet'>;

/**
 * The store's pets. Adding a pet also starts its inventory entry. A pet beyond the domain's limits (a
 * name longer than PET_NAME_MAX, say) is a bug of the caller, since the edges refuse it first: the adds
 * throw a RangeError and add nothing.
 */
export interface PetCatalog {
  get(id: PetId): Promise<Pet | undefined>;

  /**
   * Adds every pet or none: an id already stored, or given twice, adds nothing and names the id.
   * Resolves to the number of pets added.
   */
  addAll(pets: readonly NewPet[]): Promise<Result<number, DuplicatePet>>;

  /**
   * Adds the pets of every batch, or none, as one addAll of all of them would: an id already stored, or
   * given twice anywhere in the stream, adds nothing and names the id; so does any other failure,
   * up to the last batch. When `batches` throws, nothing is added and its error is thrown on. Holds
   * about one batch in process memory at a time, so a file of millions of pets can be imported
   * (the memory adapter excepted, whose store is process memory). Resolves to the number added.
   */
  addStream(batches: AsyncIterable<readonly NewPet[]>): Promise<Result<number, DuplicatePet>>;

  /**
   * Every pet with its stock, by id ascending, in chunks of at most 1,000. Like the inventory list,
   * each chunk is read on its own: a pet added or changed meanwhile is seen once or not at all.
   */
  listWithStock(): AsyncIterable<readonly StockedPet[]>;
}
