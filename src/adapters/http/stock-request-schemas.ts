import { LosslessNumber } from 'lossless-json';
import * as v from 'valibot';
import { integerOfDecimal } from '../../domain/decimal-integer.js';
import { type PetId, parsePetId } from '../../domain/pet-id.js';
import { isQuantity, QUANTITY_MAX, type Quantity } from '../../domain/quantity.js';
import { fail, ok, type Result } from '../../domain/result.js';
import { isReason, REASON_MAX } from '../../domain/stock-change.js';
import { isDelta, type StockOrder, stockOrderNamed } from '../../domain/stock-command.js';
import { integerField, isJsonObject, QuantityField } from './request-schemas.js';

/* The bodies of the stock writes: PATCH, adjustments and batches, each field by the domain's rules. */

const REASON_MESSAGE = `reason must be a string of 1 to ${REASON_MAX} characters without control characters (line separators, bidirectional controls, invisible and tag characters included)`;

const ReasonField = v.pipe(v.string(REASON_MESSAGE), v.check(isReason, REASON_MESSAGE));

const DELTA_MESSAGE = `delta must be a non-zero integer from -${QUANTITY_MAX} to ${QUANTITY_MAX}`;

const DeltaField = integerField(isDelta, DELTA_MESSAGE);

/**
 * A strict object whose object-level issues (a missing field, an unknown one) say what it takes;
 * `fields` names them for the message.
 */
export const bodyObject = <E extends v.ObjectEntries>(entries: E, fields: string, required: string) =>
  v.strictObject(entries, (issue) =>
    issue.expected === 'never' ? `the body has the unknown field ${issue.received}; it takes only ${fields}` : required,
  );

/** The body of updateInventory. */
export interface InventoryUpdateBody {
  readonly quantity: Quantity;
  readonly reason?: string | undefined;
}

/** The body of adjustInventory. */
export interface AdjustmentBody {
  readonly delta: number;
  readonly reason?: string | undefined;
}

// request-schemas.ts's QuantityField says the same.
const QUANTITY_MESSAGE = `quantity must be an integer from 0 to ${QUANTITY_MAX}`;

/*
 * The two bodies of a write of one pet are checked by hand, not by a valibot schema: they are every
 * PATCH's and adjustment's, and the schema's run (a dataset, an output object and a pipe's steps a
 * field) was about a kilobyte of a PATCH's allocation and a tenth of its route's CPU. The checks and
 * their order are bodyObject's over `{ <field>: integerField, reason: v.optional(ReasonField) }`: the
 * first issue found wins, the fields in that order, then the first unknown field in the body's own
 * order (tests/unit/stock-request-schemas.test.ts holds the two to the same answers).
 */

/** A number of the body as integerField reads it: its literal exactly an integer, or `undefined`. */
const integerOf = (value: unknown): number | undefined =>
  value instanceof LosslessNumber ? integerOfDecimal(value.value) : undefined;

/** Whether `fields` holds a reason, and it is no reason (see ReasonField). */
const badReason = (fields: Readonly<Record<string, unknown>>): boolean =>
  'reason' in fields && (typeof fields.reason !== 'string' || !isReason(fields.reason));

/** The message of the body's first field that is neither `field` nor reason; `undefined` when none. */
function unknownField(fields: object, field: string): string | undefined {
  for (const key in fields) {
    // Quoted as valibot names a key, unescaped.
    if (key !== field && key !== 'reason')
      return `the body has the unknown field "${key}"; it takes only ${field} and reason`;
  }
  return undefined;
}

/** A parsed body of updateInventory, or the message of a 400 `invalid_body`. */
export function parseInventoryUpdate(body: unknown): Result<InventoryUpdateBody, string> {
  if (!isJsonObject(body)) return fail('the body must be a JSON object');
  const fields = body as Readonly<Record<string, unknown>>;
  if (!('quantity' in fields)) return fail('quantity is required');
  const quantity = integerOf(fields.quantity);
  if (quantity === undefined || !isQuantity(quantity)) return fail(QUANTITY_MESSAGE);
  if (badReason(fields)) return fail(REASON_MESSAGE);
  const unknown = unknownField(fields, 'quantity');
  if (unknown !== undefined) return fail(unknown);
  return ok({ quantity, reason: fields.reason as string | undefined });
}

/** A parsed body of adjustInventory, or the message of a 400 `invalid_body`. */
export function parseAdjustment(body: unknown): Result<AdjustmentBody, string> {
  if (!isJsonObject(body)) return fail('the body must be a JSON object');
  const fields = body as Readonly<Record<string, unknown>>;
  if (!('delta' in fields)) return fail('delta is required');
  const delta = integerOf(fields.delta);
  if (delta === undefined || !isDelta(delta)) return fail(DELTA_MESSAGE);
  if (badReason(fields)) return fail(REASON_MESSAGE);
  const unknown = unknownField(fields, 'delta');
  if (unknown !== undefined) return fail(unknown);
  return ok({ delta, reason: fields.reason as string | undefined });
}

/** The most entries one batch takes. */
export const BATCH_MAX = 100;

const PET_ID_MESSAGE = 'petId must be a signed 64-bit integer in canonical decimal, such as 42';

// An id has one spelling (see parsePetId); the lossless parser hands over its literal, exact past 2^53.
const PetIdField = v.pipe(
  v.instance(LosslessNumber, PET_ID_MESSAGE),
  v.rawTransform<LosslessNumber, PetId>(({ dataset, addIssue, NEVER }) => {
    const id = parsePetId(dataset.value.value);
    if (id !== undefined) return id;
    addIssue({ message: PET_ID_MESSAGE });
    return NEVER;
  }),
);

const VersionField = integerField(
  (value) => value >= 1,
  'ifVersion must be a positive integer: the version of the entry’s ETag, without its quotes',
);

const BatchEntry = v.pipe(
  v.custom<Record<string, unknown>>(isJsonObject, 'must be a JSON object'),
  bodyObject(
    {
      petId: PetIdField,
      quantity: v.optional(QuantityField),
      delta: v.optional(DeltaField),
      ifVersion: v.optional(VersionField),
      reason: v.optional(ReasonField),
    },
    'petId, quantity or delta, ifVersion and reason',
    'petId is required',
  ),
);

const BATCH_SIZE_MESSAGE = `changes must be an array of 1 to ${BATCH_MAX} entries`;

const Batch = bodyObject(
  {
    changes: v.pipe(
      v.array(BatchEntry, BATCH_SIZE_MESSAGE),
      v.minLength(1, BATCH_SIZE_MESSAGE),
      v.maxLength(BATCH_MAX, BATCH_SIZE_MESSAGE),
    ),
    reason: v.optional(ReasonField),
  },
  'changes and reason',
  'changes is required',
);

/** Where an issue of the batch lies, `changes[3]: ` for one of its entries. */
const placeOf = (issue: v.BaseIssue<unknown>): string => {
  const index = issue.path?.[1]?.key;
  return issue.path?.[0]?.key === 'changes' && typeof index === 'number' ? `changes[${index}]: ` : '';
};

/**
 * A parsed body of batchUpdateInventory as its orders, in the request's order, or the message of a 400
 * `invalid_body` naming the entry at fault. Each pet may appear once.
 */
export function parseBatch(body: unknown): Result<readonly StockOrder[], string> {
  if (!isJsonObject(body)) return fail('the body must be a JSON object');
  const parsed = v.safeParse(Batch, body);
  if (!parsed.success) {
    const [issue] = parsed.issues;
    return fail(issue === undefined ? 'invalid input' : `${placeOf(issue)}${issue.message}`);
  }
  const { changes, reason } = parsed.output;
  const seen = new Map<PetId, number>();
  const orders: StockOrder[] = [];
  for (const [index, entry] of changes.entries()) {
    const first = seen.get(entry.petId);
    if (first !== undefined) {
      return fail(`changes[${index}]: pet ${entry.petId} is already changed by changes[${first}]; name each pet once`);
    }
    seen.set(entry.petId, index);
    // The core makes the order from the value the entry names: the schema checked each field's value.
    const order = stockOrderNamed(entry, {
      petId: entry.petId,
      ifVersion: entry.ifVersion === undefined ? undefined : [entry.ifVersion],
      reason: entry.reason ?? reason,
    });
    if (!order.ok) return fail(`changes[${index}]: ${order.error}`);
    orders.push(order.value);
  }
  return ok(orders);
}
