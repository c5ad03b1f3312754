import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { integerField, parseBody, QuantityField } from '../../src/adapters/http/request-schemas.js';
import { bodyObject, parseAdjustment, parseInventoryUpdate } from '../../src/adapters/http/stock-request-schemas.js';
import { parseJson } from '../../src/adapters/shared/json-reader.js';
import { QUANTITY_MAX } from '../../src/domain/quantity.js';
import { isReason, REASON_MAX } from '../../src/domain/stock-change.js';
import { isDelta } from '../../src/domain/stock-command.js';

// The schemas the hand checks replaced: each body must get the same answer from both.
const REASON_MESSAGE = `reason must be a string of 1 to ${REASON_MAX} characters without control characters (line separators, bidirectional controls, invisible and tag characters included)`;
const ReasonField = v.pipe(v.string(REASON_MESSAGE), v.check(isReason, REASON_MESSAGE));
const DeltaField = integerField(isDelta, `delta must be a non-zero integer from -${QUANTITY_MAX} to ${QUANTITY_MAX}`);
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

const BODIES = [
  '{}',
  '[]',
  '[1]',
  '7',
  '"x"',
  'null',
  'true',
  '{"quantity":5}',
  '{"quantity":0}',
  '{"quantity":-1}',
  `{"quantity":${QUANTITY_MAX}}`,
  `{"quantity":${QUANTITY_MAX + 1}}`,
  '{"quantity":5.0}',
  '{"quantity":5.5}',
  '{"quantity":1e2}',
  '{"quantity":"5"}',
  '{"quantity":null}',
  '{"quantity":[5]}',
  '{"quantity":{"a":1}}',
  '{"quantity":99999999999999999999}',
  '{"delta":3}',
  '{"delta":-3}',
  '{"delta":0}',
  '{"delta":-0}',
  `{"delta":${-QUANTITY_MAX}}`,
  `{"delta":${-QUANTITY_MAX - 1}}`,
  '{"delta":"3"}',
  '{"quantity":5,"reason":"recount"}',
  '{"delta":2,"reason":"recount"}',
  '{"quantity":5,"reason":""}',
  '{"delta":2,"reason":""}',
  '{"quantity":5,"reason":7}',
  '{"quantity":5,"reason":null}',
  '{"quantity":5,"reason":"a\\u0007b"}',
  '{"quantity":5,"reason":"a\\u2028b"}',
  `{"quantity":5,"reason":"${'x'.repeat(REASON_MAX)}"}`,
  `{"quantity":5,"reason":"${'x'.repeat(REASON_MAX + 1)}"}`,
  '{"reason":"why"}',
  '{"reason":7}',
  '{"quantity":5,"extra":1}',
  '{"delta":5,"extra":1}',
  '{"extra":1,"quantity":5}',
  '{"quantity":5,"b":1,"1":2}',
  '{"quantity":5,"a\\"b":1}',
  '{"quantity":5,"delta":1}',
  '{"delta":1,"quantity":5}',
  '{"quantity":-1,"reason":7,"extra":1}',
  '{"reason":7,"extra":1}',
  '{"extra":1}',
  '{"quantity":5,"reason":"ok","toString":1}',
  '{"quantity":5,"__proto__":1}',
  '{"quantity":5,"constructor":1}',
  '{"hasOwnProperty":1}',
];

describe('the hand checks of a write of one pet', () => {
  it.each(BODIES)('answers %s as the schemas did', (text) => {
    const body = parseJson(text);
    expect(parseInventoryUpdate(body)).toEqual(parseBody(InventoryUpdate, body));
    expect(parseAdjustment(body)).toEqual(parseBody(Adjustment, body));
  });
});
