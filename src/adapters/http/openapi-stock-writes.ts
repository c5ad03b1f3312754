import { QUANTITY_MAX } from '../../domain/quantity.js';
import { type ErrorCode, statusOf } from './error-table.js';
import { type JsonObject, REASON } from './openapi-components.js';
import {
  INTERNAL,
  jsonContent,
  LIMIT_HEADERS,
  PET_ID_PARAMETER,
  type Responses,
  ref,
  responses,
  TOO_MANY,
  UNAUTHORIZED,
  UNAVAILABLE,
} from './openapi-responses.js';

/* The stock writes: updateInventory, adjustInventory and batchUpdateInventory. */

const ITEM = ref('schemas', 'InventoryItem');
const REPLAYABLE = [...LIMIT_HEADERS, 'Idempotent-Replayed'];

const DELTA: JsonObject = {
  type: 'integer',
  format: 'int32',
  minimum: -QUANTITY_MAX,
  maximum: QUANTITY_MAX,
  not: { const: 0 },
  description: 'How much to add to the stock, or (negative) take from it; never 0.',
};

/** The request bodies of the writes, for the document's schemas. */
export const STOCK_WRITE_SCHEMAS: JsonObject = {
  AdjustmentRequest: {
    type: 'object',
    required: ['delta'],
    additionalProperties: false,
    description:
      'Moves the stock by delta. A result below 0 or above 2147483647 is refused and nothing is written; the ' +
      'status moves by the stock rule on the result. An unknown field is refused.',
    properties: { delta: DELTA, reason: REASON },
  },
};

/** The answers every write shares: the checks of the request, the key's, and the store's. */
const writeAnswers = (bodyLimitBytes: number, bodyRule: string): Responses => ({
  invalid_body: {
    description:
      'invalid_pet_id: petId is not a signed 64-bit integer; invalid_body: the body is empty, not UTF-8, not ' +
      `JSON, not an object, ${bodyRule}, has another field, or reason is not 1 to 200 characters without ` +
      'control characters; invalid_idempotency_key: Idempotency-Key is not 1 to 255 visible ASCII characters; ' +
      'invalid_if_match: If-Match is neither * nor a list of entity tags.',
  },
  unauthorized: UNAUTHORIZED,
  pet_not_found: { description: 'pet_not_found: no pet has this id.', headers: REPLAYABLE },
  precondition_failed: {
    description:
      'precondition_failed: the entry is not at a version If-Match names; nothing was written. The ETag is ' +
      'the current one.',
    headers: [...REPLAYABLE, 'ETag'],
  },
  payload_too_large: { description: `payload_too_large: the body is larger than ${bodyLimitBytes} bytes.` },
  unsupported_media_type: { description: 'unsupported_media_type: the body is not application/json.' },
  idempotency_key_reused: {
    description:
      'idempotency_key_reused: this API key used the Idempotency-Key on another request (another method, ' +
      'path or body) within the last 24 hours.',
  },
  precondition_required: {
    description: 'precondition_required: the service is configured to require If-Match, and it is missing.',
  },
  rate_limited: TOO_MANY,
  internal_error: INTERNAL,
  unavailable: UNAVAILABLE,
});

const IN_USE =
  'idempotency_key_in_use: the first request with this Idempotency-Key is still being processed; retry once ' +
  'it has been answered.';

/** What is stored under an Idempotency-Key: the outcomes with these codes, and a success. */
const stored = (outcomes: readonly ErrorCode[]): string =>
  `Every check of the request (${statusOf('invalid_body')}, ${statusOf('precondition_required')}) comes ` +
  'before the write and is not stored under an Idempotency-Key; the outcomes (success, ' +
  `${outcomes.map(statusOf).join(', ')}) are.`;

const ONE_PET_PARAMETERS = [PET_ID_PARAMETER, ref('parameters', 'IfMatch'), ref('parameters', 'IdempotencyKey')];

const UPDATED: Responses['ok'] = {
  description: 'The updated entry, with its new ETag.',
  headers: [...REPLAYABLE, 'ETag'],
  schema: ITEM,
};

export const updateInventory = (bodyLimitBytes: number): JsonObject => ({
  operationId: 'updateInventory',
  tags: ['inventory'],
  summary: 'Set the stock level of one pet (experimental)',
  description:
    'Experimental: the request shape may change before it becomes stable. Sets the quantity and moves the ' +
    'status by the stock rule; the change is recorded with the key id, time and reason. If-Match makes the ' +
    `update conditional on the ETag read before; Idempotency-Key makes a retry safe. ` +
    stored(['pet_not_found', 'precondition_failed']),
  'x-experimental': true,
  parameters: ONE_PET_PARAMETERS,
  requestBody: { required: true, content: jsonContent(ref('schemas', 'InventoryUpdate')) },
  responses: responses({
    ok: UPDATED,
    ...writeAnswers(bodyLimitBytes, 'lacks quantity, quantity is not an integer from 0 to 2147483647'),
    idempotency_key_in_use: { description: IN_USE },
  }),
});

export const adjustInventory = (bodyLimitBytes: number): JsonObject => ({
  operationId: 'adjustInventory',
  tags: ['inventory'],
  summary: 'Move the stock level of one pet by a delta',
  description:
    'Adds delta to the quantity (or takes it away) in one step, so that concurrent adjustments never lose ' +
    'one another, and moves the status by the stock rule on the result; the change is recorded with its ' +
    'kind (adjust), the key id, time and reason. A result below 0 or above 2147483647 is refused and nothing ' +
    'is written. If-Match and Idempotency-Key work as on updateInventory. ' +
    stored(['pet_not_found', 'insufficient_stock', 'precondition_failed']),
  parameters: ONE_PET_PARAMETERS,
  requestBody: { required: true, content: jsonContent(ref('schemas', 'AdjustmentRequest')) },
  responses: responses({
    ok: UPDATED,
    ...writeAnswers(bodyLimitBytes, 'lacks delta, delta is not a non-zero integer from -2147483647 to 2147483647'),
    insufficient_stock: {
      description:
        'insufficient_stock: the delta would take the stock below 0; quantity_limit_exceeded: above ' +
        `2147483647. Nothing was written. Or ${IN_USE}`,
      headers: REPLAYABLE,
    },
  }),
});
