import { LosslessNumber } from 'lossless-json';
import * as v from 'valibot';
import { type PetId, parsePetId } from '../../domain/pet-id.js';
import { QUANTITY_MAX, type Quantity } from '../../domain/quantity.js';
import { fail, ok, type Result } from '../../domain/result.js';
import { isReason, REASON_MAX } from '../../domain/stock-change.js';
import { isDelta, type StockOrder, stockOrderNamed } from '../../domain/stock-command.js';
import { integerField, isJsonObject, parseBody, QuantityField } from './request-schemas.js';

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

const InventoryUpdate = bodyObject(
  { quantity: QuantityField, reason: v.optional(ReasonField) },
  'quantity and reason',
  'quantity is required',
);

const Adjustment = bodyObject(
  { delta: DeltaField, reason: v.optional(ReasonField) },
  'delta and reason',
  'delta is required',
);

/** The body of updateInventory. */
export interface InventoryUpdateBody {
  readonly quantity: Quantity;
  readonly reason?: string;
}

/** The body of adjustInventory. */
export interface AdjustmentBody {
  readonly delta: number;
  readonly reason?: string;
}

/** A parsed body of updateInventory, or the message of a 400 `invalid_body`. */
export const parseInventoryUpdate = (body: unknown): Result<InventoryUpdateBody, string> =>
  parseBody(InventoryUpdate, body);

/** A parsed body of adjustInventory, or the message of a 400 `invalid_body`. */
export const parseAdjustment = (body: unknown): Result<AdjustmentBody, string> => parseBody(Adjustment, body);

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
