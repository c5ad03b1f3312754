import * as v from 'valibot';
import type { Quantity } from '../../domain/quantity.js';
import { QUANTITY_MAX } from '../../domain/quantity.js';
import type { Result } from '../../domain/result.js';
import { isReason, REASON_MAX } from '../../domain/stock-change.js';
import { isDelta } from '../../domain/stock-command.js';
import { integerField, parseBody, QuantityField } from './request-schemas.js';

/* The bodies of the stock writes: PATCH, adjustments and batches, each field by the domain's rules. */

const REASON_MESSAGE = `reason must be a string of 1 to ${REASON_MAX} characters without control characters`;

const ReasonField = v.pipe(v.string(REASON_MESSAGE), v.check(isReason, REASON_MESSAGE));

const DELTA_MESSAGE = `delta must be a non-zero integer from -${QUANTITY_MAX} to ${QUANTITY_MAX}`;

const DeltaField = integerField(isDelta, DELTA_MESSAGE);

/**
 * A strict object whose object-level issues (a missing field, an unknown one) say what it takes;
 * `fields` names them for the message.
 */
const bodyObject = <E extends v.ObjectEntries>(entries: E, fields: string, required: string) =>
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
