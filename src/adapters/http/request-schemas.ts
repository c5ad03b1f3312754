import { LosslessNumber } from 'lossless-json';
import * as v from 'valibot';
import { integerOfDecimal } from '../../domain/decimal-integer.js';
import { type PetId, parsePetId } from '../../domain/pet-id.js';
import { isQuantity, QUANTITY_MAX, type Quantity } from '../../domain/quantity.js';
import { fail, ok, type Result } from '../../domain/result.js';

/*
 * The request schemas, compiled once at load. Each parse turns raw input into domain values or a
 * message naming the field at fault; the domain re-checks its invariants in its constructors.
 */

const PET_ID_MESSAGE =
  'must be a base-10 signed 64-bit integer such as 42, without +, leading zeros, fraction or exponent';

const petIdSchema = (name: string) =>
  v.pipe(
    v.string(`${name} ${PET_ID_MESSAGE}`),
    v.rawTransform<string, PetId>(({ dataset, addIssue, NEVER }) => {
      const id = parsePetId(dataset.value);
      if (id !== undefined) return id;
      addIssue({ message: `${name} ${PET_ID_MESSAGE}` });
      return NEVER;
    }),
  );

const PetIdParam = petIdSchema('petId');

/** The most entries one page of the list may ask for; the plain call (no limit) returns them all. */
export const PAGE_LIMIT_MAX = 10_000;

const LIMIT_MESSAGE = `limit must be an integer from 1 to ${PAGE_LIMIT_MAX}`;

const InventoryQuery = v.object({
  limit: v.optional(
    v.pipe(
      v.string(LIMIT_MESSAGE),
      v.regex(/^[1-9][0-9]{0,4}$/, LIMIT_MESSAGE),
      v.transform(Number),
      v.maxValue(PAGE_LIMIT_MAX, LIMIT_MESSAGE),
    ),
  ),
  after: v.optional(petIdSchema('after')),
});

const QUANTITY_MESSAGE = `quantity must be an integer from 0 to ${QUANTITY_MAX}`;

// The body is parsed losslessly, so a number arrives as its literal text and its value is judged by the
// service's one integer rule: 1e20 or 2147483648.0000000001 are refused, never rounded into range.
const QuantityField = v.pipe(
  v.instance(LosslessNumber, QUANTITY_MESSAGE),
  v.rawTransform<LosslessNumber, Quantity>(({ dataset, addIssue, NEVER }) => {
    const value = integerOfDecimal(dataset.value.value);
    if (value !== undefined && isQuantity(value)) return value;
    addIssue({ message: QUANTITY_MESSAGE });
    return NEVER;
  }),
);

// Given an object (parseInventoryUpdate checks that first), the only issues left are a missing
// quantity and an unknown field.
const InventoryUpdate = v.strictObject({ quantity: QuantityField }, (issue) =>
  issue.expected === 'never'
    ? `the body has the unknown field ${issue.received}; it takes only quantity`
    : 'quantity is required',
);

const isJsonObject = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

const firstMessage = (issues: readonly v.BaseIssue<unknown>[]): string => issues[0]?.message ?? 'invalid input';

/** A petId path segment as a PetId, or the message of a 400 `invalid_pet_id`. */
export function parsePetIdParam(segment: string | undefined): Result<PetId, string> {
  const parsed = v.safeParse(PetIdParam, segment);
  return parsed.success ? ok(parsed.output) : fail(firstMessage(parsed.issues));
}

/** Paging of the list: both optional, unknown parameters ignored. */
export interface InventoryPage {
  readonly limit?: number;
  readonly after?: PetId;
}

/** The list's query, or the message of a 400 `invalid_query` (a repeated parameter is invalid). */
export function parseInventoryQuery(query: Readonly<Record<string, unknown>>): Result<InventoryPage, string> {
  const parsed = v.safeParse(InventoryQuery, query);
  return parsed.success ? ok(parsed.output) : fail(firstMessage(parsed.issues));
}

/** A parsed body of updateInventory as its Quantity, or the message of a 400 `invalid_body`. */
export function parseInventoryUpdate(body: unknown): Result<Quantity, string> {
  // An array or a bare number (a LosslessNumber) is an object to valibot; only a JSON object will do.
  if (!isJsonObject(body)) return fail('the body must be a JSON object');
  const parsed = v.safeParse(InventoryUpdate, body);
  return parsed.success ? ok(parsed.output.quantity) : fail(firstMessage(parsed.issues));
}
