import type { PetId } from '../../domain/pet-id.js';
import type { StockChange } from '../../domain/stock-change.js';

/** The record of stock changes, written by `InventoryRepository.update` in its transaction. */
export interface StockChangeLog {
  /** The changes of one pet, oldest first. */
  history(petId: PetId): Promise<readonly StockChange[]>;
}
