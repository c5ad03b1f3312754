import { type PetId, petId as toPetId } from './pet-id.js';
import { isPetStatus, type PetStatus } from './pet-status.js';
import { type Quantity, quantity as toQuantity } from './quantity.js';

/** The stock level of one pet. */
export interface InventoryItem {
  readonly petId: PetId;
  readonly quantity: Quantity;
  readonly status: PetStatus;
}

/** Makes an InventoryItem, re-checking every invariant: an invalid one is a bug of the caller. */
export function inventoryItem(petId: bigint, quantity: number, status: PetStatus): InventoryItem {
  if (!isPetStatus(status)) throw new RangeError(`status ${String(status)} is not a PetStatus`);
  return { petId: toPetId(petId), quantity: toQuantity(quantity), status };
}

/**
 * The status a pet has once its stock is set to `quantity`. None left means sold; stock arriving for a
 * sold pet makes it available again; otherwise the status is kept, so a pending sale stays pending.
 */
export function statusAfterStockChange(current: PetStatus, quantity: Quantity): PetStatus {
  if (quantity === 0) return 'sold';
  if (current === 'sold') return 'available';
  return current;
}

/** The item with its stock set to `quantity` and its status moved by the rule above. */
export const withStock = (item: InventoryItem, quantity: Quantity): InventoryItem => ({
  petId: item.petId,
  quantity,
  status: statusAfterStockChange(item.status, quantity),
});
