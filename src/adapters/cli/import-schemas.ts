import { isLosslessNumber, type LosslessNumber } from 'lossless-json';
import * as v from 'valibot';
import type { NewPet } from '../../application/ports/pet-catalog.js';
import { integerInRange } from '../../domain/decimal-integer.js';
import { openingStockProblem } from '../../domain/inventory-item.js';
import { ORDER_STATUSES, type Order } from '../../domain/order.js';
import {
  CATEGORY_NAME_MAX,
  nameCharactersProblem,
  PET_NAME_MAX,
  PHOTO_URL_MAX,
  PHOTO_URLS_MAX,
  photoUrlProblem,
  TAG_NAME_MAX,
  TAGS_MAX,
} from '../../domain/pet.js';
import { type PetId, parsePetId } from '../../domain/pet-id.js';
import { PET_STATUSES } from '../../domain/pet-status.js';
import { QUANTITY_MAX, type Quantity } from '../../domain/quantity.js';
import { INT64_RULE, QUANTITY_RULE, STATUS_RULE } from './cli-values.js';

/**
 * Schemas of one entry of an import file, over what the shared JSON reader parses: every JSON number
 * arrives as a LosslessNumber holding its literal, so an id past 2^53 reaches `parsePetId` exact and a
 * quantity is judged by the service's one integer rule, as a PATCH's is. The domain's limits on texts
 * and lists are checked here, with a message naming the field; the domain checks them again.
 */

const int64 = v.pipe(
  v.custom<LosslessNumber>((n) => isLosslessNumber(n) && parsePetId(n.value) !== undefined, INT64_RULE),
  v.transform((n): PetId => parsePetId(n.value) as PetId),
);

const wholeNumber = (min: number, rule: string) =>
  v.pipe(
    v.custom<LosslessNumber>(
      (n) => isLosslessNumber(n) && integerInRange(n.value, min, QUANTITY_MAX) !== undefined,
      rule,
    ),
    v.transform((n): Quantity => integerInRange(n.value, min, QUANTITY_MAX) as Quantity),
  );

/** A text of 1 to `max` characters that `content` (a domain rule) finds nothing wrong with. */
const text = (max: number, content: (text: string) => string | undefined) =>
  v.pipe(
    v.string('must be a string'),
    v.nonEmpty('must not be empty'),
    v.maxLength(max, (issue) => `must be at most ${max} characters (it has ${issue.received})`),
    v.rawCheck(({ dataset, addIssue }) => {
      const problem = dataset.typed ? content(dataset.value) : undefined;
      if (problem !== undefined) addIssue({ message: problem });
    }),
  );

const name = (max: number) => text(max, nameCharactersProblem);

const named = (max: number) => v.strictObject({ id: int64, name: name(max) }, 'must be an object with id and name');

const listOf = <S extends v.GenericSchema>(item: S, max: number, what: string) =>
  v.pipe(
    v.array(item, `must be an array of ${what}`),
    v.maxLength(max, (issue) => `must hold at most ${max} ${what} (it has ${issue.received})`),
  );

/** One pet of `pets import`: the public Petstore fields, and its opening stock. */
export const petEntry = v.pipe(
  v.strictObject(
    {
      id: int64,
      name: name(PET_NAME_MAX),
      quantity: wholeNumber(0, QUANTITY_RULE),
      status: v.picklist(PET_STATUSES, STATUS_RULE),
      category: v.optional(named(CATEGORY_NAME_MAX)),
      photoUrls: v.optional(listOf(text(PHOTO_URL_MAX, photoUrlProblem), PHOTO_URLS_MAX, 'strings')),
      tags: v.optional(listOf(named(TAG_NAME_MAX), TAGS_MAX, '{id, name}')),
    },
    'must be an object with id, name, quantity and status',
  ),
  // The core's one rule of a pet's opening stock, said of the entry (AddPets would throw on it).
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const problem = openingStockProblem(dataset.value.status, dataset.value.quantity);
    if (problem !== undefined) addIssue({ message: problem });
  }),
) satisfies v.GenericSchema<unknown, NewPet>;

/** Longer than any ISO 8601 date-time needs; the format check does the rest. */
const SHIP_DATE_MAX = 64;

/** One order of `orders import`: the public Petstore Order, every field required. */
export const orderEntry = v.strictObject(
  {
    id: int64,
    petId: int64,
    // An order is for at least one pet.
    quantity: wholeNumber(1, `must be a whole number from 1 to ${QUANTITY_MAX}`),
    shipDate: v.pipe(
      v.string('must be a string'),
      v.maxLength(SHIP_DATE_MAX, `must be an ISO 8601 date-time of at most ${SHIP_DATE_MAX} characters`),
      v.isoTimestamp('must be an ISO 8601 date-time such as 2026-03-01T12:00:00Z'),
    ),
    status: v.picklist(ORDER_STATUSES, `must be one of ${ORDER_STATUSES.join(', ')}`),
    complete: v.boolean('must be true or false'),
  },
  'must be an object with id, petId, quantity, shipDate, status and complete',
) satisfies v.GenericSchema<unknown, Order>;
