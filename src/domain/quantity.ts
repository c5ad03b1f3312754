/** A stock count: an integer from 0 to 2,147,483,647 (the largest 32-bit signed integer). */
export type Quantity = number & { readonly __brand: 'Quantity' };

export const QUANTITY_MAX = 2_147_483_647;

export const isQuantity = (value: unknown): value is Quantity =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= QUANTITY_MAX;

/** Makes a Quantity, throwing on anything else: passing a bad count is a bug of the caller. */
export function quantity(value: number): Quantity {
  if (!isQuantity(value)) throw new RangeError(`quantity ${value} is not an integer from 0 to ${QUANTITY_MAX}`);
  return value;
}
