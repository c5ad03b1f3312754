/**
 * A pet's id: a signed 64-bit integer, exact over its whole range. It is a `bigint` so that ids beyond
 * 2^53 are never rounded, which a JavaScript number would silently do.
 */
export type PetId = bigint & { readonly __brand: 'PetId' };

export const PET_ID_MIN = -(2n ** 63n);
export const PET_ID_MAX = 2n ** 63n - 1n;

// Canonical base-10 only: no sign on zero, no leading zeros, no '+', no exponent, no fraction, so that
// every id has exactly one spelling in paths, logs and files. 19 digits is the most an int64 needs.
const CANONICAL_INT64 = /^(?:0|-?[1-9][0-9]{0,18})$/;

export const isPetIdInRange = (value: bigint): boolean => value >= PET_ID_MIN && value <= PET_ID_MAX;

/** Parses a canonical base-10 int64; anything else (`abc`, `1.5`, `1e3`, `007`, 20 digits) is `undefined`. */
export function parsePetId(text: string): PetId | undefined {
  if (!CANONICAL_INT64.test(text)) return undefined;
  const value = BigInt(text);
  return isPetIdInRange(value) ? (value as PetId) : undefined;
}

/** Makes a PetId from a bigint, throwing on a value outside int64: passing one is a bug of the caller. */
export function petId(value: bigint | number): PetId {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    throw new RangeError(`pet id ${value} is not a safe integer; pass a bigint`);
  }
  const big = BigInt(value);
  if (!isPetIdInRange(big)) throw new RangeError(`pet id ${big} is outside the signed 64-bit range`);
  return big as PetId;
}
