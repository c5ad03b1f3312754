import { type PetId, petId as toPetId } from './pet-id.js';
import { isPetStatus, type PetStatus } from './pet-status.js';
import { type Quantity, quantity as toQuantity } from './quantity.js';

/** The stock on hand of one pet and its status: what a stock change records, before and after. */
export interface StockLevel {
  readonly petId: PetId;
  readonly quantity: Quantity;
  readonly status: PetStatus;
}

/**
 * The stock level of one pet as the API answers it: what is on hand (`quantity`), and how much of it
 * held reservations set aside (`reserved`, never more than `quantity`). What is available is the rest
 * (see `availableOf`).
 */
export interface InventoryItem extends StockLevel {
  readonly reserved: Quantity;
}

/** Makes a StockLevel, re-checking every invariant: an invalid one is a bug of the caller. */
export function stockLevel(petId: bigint, quantity: number, status: PetStatus): StockLevel {
  if (!isPetStatus(status)) throw new RangeError(`status ${String(status)} is not a PetStatus`);
  return { petId: toPetId(petId), quantity: toQuantity(quantity), status };
}

/** Makes an InventoryItem, re-checking every invariant (reserved within what is on hand). */
export function inventoryItem(petId: bigint, quantity: number, status: PetStatus, reserved: number): InventoryItem {
  const level = stockLevel(petId, quantity, status);
  if (toQuantity(reserved) > level.quantity) {
    throw new RangeError(`pet ${petId} has ${reserved} reserved of the ${quantity} on hand`);
  }
  // A literal, not a spread: this runs for every entry a write reads, and a spread builds it slowly.
  return { petId: level.petId, quantity: level.quantity, status: level.status, reserved: reserved as Quantity };
}

/** The stock level of an item, without what is reserved of it: what a change records. */
export const levelOf = (item: InventoryItem): StockLevel => ({
  petId: item.petId,
  quantity: item.quantity,
  status: item.status,
});

/**
 * What can still be reserved or taken of `quantity` on hand when held reservations set `reserved` of
 * it aside: the one definition, for an item or for a list's columns (see InventoryColumns).
 */
export const availableFrom = (quantity: number, reserved: number): number => quantity - reserved;

/** What can still be reserved or taken of an item (see `availableFrom`). */
export const availableOf = (item: InventoryItem): number => availableFrom(item.quantity, item.reserved);

/**
 * The status a pet has once its stock is set to `quantity`. None left means sold; stock arriving for a
 * sold pet makes it available again; otherwise the status is kept, so a pending sale stays pending.
 */
export function statusAfterStockChange(current: PetStatus, quantity: Quantity): PetStatus {
  if (quantity === 0) return 'sold';
  if (current === 'sold') return 'available';
  return current;
}

/**
 * What is wrong with a pet that opens with `quantity` in stock and `status`, or `undefined` when
 * nothing is: the one rule of a pet's opening stock, for the core's AddPets, `pets add` and `pets
 * import` alike. It is the rule above: a status the stock would not leave (for sale without stock, sold
 * with some) is refused, never silently changed.
 */
export function openingStockProblem(status: PetStatus, quantity: Quantity): string | undefined {
  if (statusAfterStockChange(status, quantity) === status) return undefined;
  return quantity === 0
    ? `status ${status} contradicts quantity 0: a pet without stock is sold`
    : `status sold contradicts quantity ${quantity}: a pet with stock is not sold`;
}

/** The level with its stock set to `quantity` and its status moved by the rule above. */
export const withStock = (level: StockLevel, quantity: Quantity): StockLevel => ({
  petId: level.petId,
  quantity,
  status: statusAfterStockChange(level.status, quantity),
});
