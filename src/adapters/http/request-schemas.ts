import { LosslessNumber } from 'lossless-json';
import * as v from 'valibot';
import { integerOfDecimal } from '../../domain/decimal-integer.js';
import { PET_NAME_MAX } from '../../domain/pet.js';
import { type PetId, parsePetId } from '../../domain/pet-id.js';
import { isPetStatus, PET_STATUSES, type PetStatus } from '../../domain/pet-status.js';
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

/** The most changes one page of a pet's history may ask for, and how many it holds when not asked. */
export const HISTORY_LIMIT_MAX = 1_000;
export const HISTORY_LIMIT_DEFAULT = 100;

/** A page size from 1 to `max`, in plain digits (a repeated parameter arrives as an array: refused). */
export const pageLimit = (max: number) => {
  const message = `limit must be an integer from 1 to ${max}`;
  return v.pipe(
    v.string(message),
    v.regex(new RegExp(`^[1-9][0-9]{0,${String(max).length - 1}}$`), message),
    v.transform(Number),
    v.maxValue(max, message),
  );
};

const STATUS_MESSAGE = `status must be one or more of ${PET_STATUSES.join(', ')}, separated by commas`;

/** `status=available,pending`: each a PetStatus, none empty; a status named twice counts once. */
const StatusFilter = v.pipe(
  v.string(STATUS_MESSAGE),
  v.rawTransform<string, readonly PetStatus[]>(({ dataset, addIssue, NEVER }) => {
    const names = dataset.value.split(',');
    if (names.every(isPetStatus)) return [...new Set(names)];
    addIssue({ message: STATUS_MESSAGE });
    return NEVER;
  }),
);

/** The largest maxAvailable: a quantity's own bound, so that every stock level can be asked for. */
export const MAX_AVAILABLE_MAX = 2_147_483_647;
const MAX_AVAILABLE_MESSAGE = `maxAvailable must be an integer from 0 to ${MAX_AVAILABLE_MAX}`;

const MaxAvailableFilter = v.pipe(
  v.string(MAX_AVAILABLE_MESSAGE),
  v.regex(/^(0|[1-9][0-9]{0,9})$/, MAX_AVAILABLE_MESSAGE),
  v.transform(Number),
  v.maxValue(MAX_AVAILABLE_MAX, MAX_AVAILABLE_MESSAGE),
);

/** The longest search: a pet's name is at most PET_NAME_MAX characters, so no longer text matches one. */
const SEARCH_MESSAGE = `q must be part of a pet's name: 1 to ${PET_NAME_MAX} characters`;

const SearchFilter = v.pipe(
  v.string(SEARCH_MESSAGE),
  v.minLength(1, SEARCH_MESSAGE),
  v.maxLength(PET_NAME_MAX, SEARCH_MESSAGE),
);

const InventoryQuery = v.object({
  limit: v.optional(pageLimit(PAGE_LIMIT_MAX)),
  q: v.optional(SearchFilter),
  after: v.optional(petIdSchema('after')),
  status: v.optional(StatusFilter),
  maxAvailable: v.optional(MaxAvailableFilter),
});

const BEFORE_MESSAGE = 'before must be a change id: a positive base-10 integer below 2^63, without leading zeros';

// Change ids are positive int64s; `before` names the last change of the previous page.
const HistoryQuery = v.object({
  limit: v.optional(pageLimit(HISTORY_LIMIT_MAX)),
  before: v.optional(
    v.pipe(
      v.string(BEFORE_MESSAGE),
      v.regex(/^[1-9][0-9]{0,18}$/, BEFORE_MESSAGE),
      v.transform((digits: string) => BigInt(digits)),
      v.maxValue(2n ** 63n - 1n, BEFORE_MESSAGE),
    ),
  ),
});

const QUANTITY_MESSAGE = `quantity must be an integer from 0 to ${QUANTITY_MAX}`;

/**
 * A whole number of the body by the service's one integer rule: the body is parsed losslessly, so a
 * number arrives as its literal text, and 1e20 or 2147483648.0000000001 are refused, never rounded into
 * range. `accept` says which values the field takes.
 */
export const integerField = (accept: (value: number) => boolean, message: string) =>
  v.pipe(
    v.instance(LosslessNumber, message),
    v.rawTransform<LosslessNumber, number>(({ dataset, addIssue, NEVER }) => {
      const value = integerOfDecimal(dataset.value.value);
      if (value !== undefined && accept(value)) return value;
      addIssue({ message });
      return NEVER;
    }),
  );

export const QuantityField = v.pipe(
  integerField(isQuantity, QUANTITY_MESSAGE),
  v.transform((value) => value as Quantity),
);

export const isJsonObject = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

const firstMessage = (issues: readonly v.BaseIssue<unknown>[]): string => issues[0]?.message ?? 'invalid input';

/** A petId path segment as a PetId, or the message of a 400 `invalid_pet_id`. */
export function parsePetIdParam(segment: string | undefined): Result<PetId, string> {
  // A valid id is what the schema's transform answers, taken without valibot's dataset and pipe (every
  // route of a pet reads one); only a refusal goes through the schema, for its message.
  const id = typeof segment === 'string' ? parsePetId(segment) : undefined;
  if (id !== undefined) return ok(id);
  const parsed = v.safeParse(PetIdParam, segment);
  return parsed.success ? ok(parsed.output) : fail(firstMessage(parsed.issues));
}

/** Paging and filters of the list: each optional, unknown parameters ignored. */
export interface InventoryPage {
  readonly limit?: number;
  readonly after?: PetId;
  readonly statuses?: readonly PetStatus[];
  readonly maxAvailable?: number;
  /** Part of a pet's name, letter case aside. */
  readonly q?: string;
}

/** The list's query, or the message of a 400 `invalid_query` (a repeated parameter is invalid). */
export function parseInventoryQuery(query: Readonly<Record<string, unknown>>): Result<InventoryPage, string> {
  const parsed = v.safeParse(InventoryQuery, query);
  if (!parsed.success) return fail(firstMessage(parsed.issues));
  const { status, ...rest } = parsed.output;
  return ok(status === undefined ? rest : { ...rest, statuses: status });
}

/** A page of a pet's stock history: how many changes, and older than which one. */
export interface HistoryPage {
  readonly limit: number;
  readonly before?: bigint;
}

/** The history's query (limit defaults to 100), or the message of a 400 `invalid_query`. */
export function parseHistoryQuery(query: Readonly<Record<string, unknown>>): Result<HistoryPage, string> {
  const parsed = v.safeParse(HistoryQuery, query);
  if (!parsed.success) return fail(firstMessage(parsed.issues));
  const { limit = HISTORY_LIMIT_DEFAULT, before } = parsed.output;
  return ok(before === undefined ? { limit } : { limit, before });
}

/**
 * A parsed JSON body through `schema`, or the message of a 400 `invalid_body`. An array or a bare
 * number (a LosslessNumber) is an object to valibot; only a JSON object will do.
 */
export function parseBody<T>(schema: v.GenericSchema<unknown, T>, body: unknown): Result<T, string> {
  if (!isJsonObject(body)) return fail('the body must be a JSON object');
  const parsed = v.safeParse(schema, body);
  return parsed.success ? ok(parsed.output) : fail(firstMessage(parsed.issues));
}
