import { openingStockProblem } from '../../domain/inventory-item.js';
import type { Result } from '../../domain/result.js';
import type { DuplicatePet, NewPet, PetCatalog } from '../ports/pet-catalog.js';

/**
 * Throws a RangeError naming the first pet whose opening status the stock would not leave
 * ({@link openingStockProblem}): the edges (`pets add`, `pets import`) refuse such a pet with a message
 * first, so reaching here with one is a bug of the caller, as a name past its limit is.
 */
function checkOpeningStock(pets: readonly NewPet[]): void {
  for (const pet of pets) {
    const problem = openingStockProblem(pet.status, pet.quantity);
    if (problem !== undefined) throw new RangeError(`pet ${pet.id}: ${problem}`);
  }
}

async function* checkedBatches(batches: AsyncIterable<readonly NewPet[]>): AsyncIterable<readonly NewPet[]> {
  for await (const batch of batches) {
    checkOpeningStock(batch);
    yield batch;
  }
}

/**
 * Adds pets with their opening stock, all or none: an array (`pets add`, the development seed), or a
 * stream of batches read from a file (`pets import`), which is never held in memory whole. A pet must
 * open as the stock rule would leave it: sold when it has no stock, and only then; one that does not is
 * thrown as a RangeError and nothing is added (a batch's is thrown through the store, which then adds none).
 */
export class AddPets {
  constructor(private readonly pets: PetCatalog) {}

  async execute(pets: readonly NewPet[] | AsyncIterable<readonly NewPet[]>): Promise<Result<number, DuplicatePet>> {
    if (Symbol.asyncIterator in pets) return this.pets.addStream(checkedBatches(pets));
    checkOpeningStock(pets);
    return this.pets.addAll(pets);
  }
}
