import { isLosslessNumber, type LosslessNumber } from 'lossless-json';
import * as v from 'valibot';
import type { NewPet } from '../../application/ports/pet-catalog.js';
import { ORDER_STATUSES, type Order } from '../../domain/order.js';
import { type PetId, parsePetId } from '../../domain/pet-id.js';
import { PET_STATUSES } from '../../domain/pet-status.js';
import { isQuantity, QUANTITY_MAX, type Quantity } from '../../domain/quantity.js';
import { INT64_RULE, QUANTITY_RULE, STATUS_RULE } from './cli-values.js';

/**
 * Schemas of the import files, over what `lossless-json` parses: every JSON number arrives as a
 * LosslessNumber holding its digits, so an id past 2^53 reaches `parsePetId` exact.
 */

const int64 = v.pipe(
  v.custom<LosslessNumber>((n) => isLosslessNumber(n) && parsePetId(n.value) !== undefined, INT64_RULE),
  v.transform((n): PetId => parsePetId(n.value) as PetId),
);

const wholeNumber = (min: number, rule: string) =>
  v.pipe(
    v.custom<LosslessNumber>((n) => isLosslessNumber(n) && isQuantity(Number(n.value)) && Number(n.value) >= min, rule),
    v.transform((n): Quantity => Number(n.value) as Quantity),
  );

const text = v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty'));

const named = v.strictObject({ id: int64, name: text }, 'must be an object with id and name');

/** One pet of `pets import`: the public Petstore fields, and its opening stock. */
export const petEntry = v.strictObject(
  {
    id: int64,
    name: text,
    quantity: wholeNumber(0, QUANTITY_RULE),
    status: v.picklist(PET_STATUSES, STATUS_RULE),
    category: v.optional(named),
    photoUrls: v.optional(v.array(v.string('must be a string'), 'must be an array of strings')),
    tags: v.optional(v.array(named, 'must be an array of {id, name}')),
  },
  'must be an object with id, name, quantity and status',
) satisfies v.GenericSchema<unknown, NewPet>;

/** One order of `orders import`: the public Petstore Order, every field required. */
export const orderEntry = v.strictObject(
  {
    id: int64,
    petId: int64,
    // An order is for at least one pet.
    quantity: wholeNumber(1, `must be a whole number from 1 to ${QUANTITY_MAX}`),
    shipDate: v.pipe(
      v.string('must be a string'),
      v.isoTimestamp('must be an ISO 8601 date-time such as 2026-03-01T12:00:00Z'),
    ),
    status: v.picklist(ORDER_STATUSES, `must be one of ${ORDER_STATUSES.join(', ')}`),
    complete: v.boolean('must be true or false'),
  },
  'must be an object with id, petId, quantity, shipDate, status and complete',
) satisfies v.GenericSchema<unknown, Order>;
