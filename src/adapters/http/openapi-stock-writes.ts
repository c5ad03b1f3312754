import { QUANTITY_MAX } from '../../domain/quantity.js';
import { type ErrorCode, statusOf } from './error-table.js';
import { type JsonObject, REASON } from './openapi-components.js';
import {
  jsonContent,
  LIMIT_HEADERS,
  PET_ID_PARAMETER,
  type Responses,
  ref,
  responses,
  TOO_MANY,
  UNAUTHORIZED,
  UNAVAILABLE,
  WRITE_INTERNAL,
} from './openapi-responses.js';
import { BATCH_MAX } from './stock-request-schemas.js';

/* The stock writes: updateInventory, adjustInventory and batchUpdateInventory. */

const ITEM = ref('schemas', 'InventoryItem');
const REPLAYABLE = [...LIMIT_HEADERS, 'Idempotent-Replayed'];

const QUANTITY: JsonObject = {
  type: 'integer',
  format: 'int32',
  minimum: 0,
  maximum: QUANTITY_MAX,
  description: 'The new stock count.',
};

const DELTA: JsonObject = {
  type: 'integer',
  format: 'int32',
  minimum: -QUANTITY_MAX,
  maximum: QUANTITY_MAX,
  not: { const: 0 },
  description: 'How much to add to the stock, or (negative) take from it; never 0.',
};

const entry = (own: string, value: JsonObject): JsonObject => ({
  type: 'object',
  required: ['petId', own],
  additionalProperties: false,
  properties: {
    petId: { type: 'integer', format: 'int64', description: 'Id of the pet; each pet once per batch.' },
    [own]: value,
    ifVersion: {
      type: 'integer',
      format: 'int64',
      minimum: 1,
      description: 'Apply only when the entry is at this version (its ETag without quotes); else 412.',
    },
    reason: { ...REASON, description: 'Why, kept in the history; the batch’s reason when absent.' },
  },
});

/** The request and answer bodies of the writes, for the document's schemas. */
export const STOCK_WRITE_SCHEMAS: JsonObject = {
  BatchRequest: {
    type: 'object',
    required: ['changes'],
    additionalProperties: false,
    description:
      `1 to ${BATCH_MAX} changes, each of another pet: a set (quantity) or an adjustment (delta). All are ` +
      'applied in one transaction, or none is. An unknown field is refused.',
    properties: {
      changes: {
        type: 'array',
        minItems: 1,
        maxItems: BATCH_MAX,
        items: {
          oneOf: [entry('quantity', QUANTITY), entry('delta', DELTA)],
        },
      },
      reason: { ...REASON, description: 'Why, kept in the history of every entry that gives no reason of its own.' },
    },
  },
  BatchResult: {
    type: 'object',
    required: ['items'],
    additionalProperties: false,
    properties: {
      items: {
        type: 'array',
        maxItems: BATCH_MAX,
        description: 'The entries as the batch left them, in the request’s order.',
        items: {
          type: 'object',
          required: ['petId', 'quantity', 'reserved', 'available', 'status', 'version'],
          additionalProperties: false,
          properties: {
            petId: { type: 'integer', format: 'int64' },
            quantity: QUANTITY,
            reserved: { ...QUANTITY, description: 'How much held reservations set aside.' },
            available: { ...QUANTITY, description: 'quantity - reserved.' },
            status: ref('schemas', 'PetStatus'),
            version: {
              type: 'integer',
              format: 'int64',
              minimum: 1,
              description: 'The entry’s new version: a batch has no per-item ETag.',
            },
          },
        },
      },
    },
  },
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
  internal_error: WRITE_INTERNAL,
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
    stored(['pet_not_found', 'quantity_below_reserved', 'precondition_failed']),
  'x-experimental': true,
  parameters: ONE_PET_PARAMETERS,
  requestBody: { required: true, content: jsonContent(ref('schemas', 'InventoryUpdate')) },
  responses: responses({
    ok: UPDATED,
    ...writeAnswers(bodyLimitBytes, 'lacks quantity, quantity is not an integer from 0 to 2147483647'),
    quantity_below_reserved: {
      description:
        'quantity_below_reserved: the quantity is below what held reservations set aside (reserved); nothing ' +
        `was written. Or ${IN_USE}`,
      headers: REPLAYABLE,
    },
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
        'insufficient_stock: the delta would take more than is available (the stock below what held ' +
        'reservations set aside, or below 0); quantity_limit_exceeded: above ' +
        `2147483647. Nothing was written. Or ${IN_USE}`,
      headers: REPLAYABLE,
    },
  }),
});

const BATCH_REFUSAL =
  'Nothing was written. The Error body is the first refused entry’s, with errors listing every refused entry ' +
  '(index, code, message).';

export const batchUpdateInventory = (bodyLimitBytes: number): JsonObject => ({
  operationId: 'batchUpdateInventory',
  tags: ['inventory'],
  summary: 'Set or adjust the stock of several pets at once, all or nothing',
  description:
    `Applies 1 to ${BATCH_MAX} changes of distinct pets in one transaction: every one, or none when any is ` +
    'refused. Each changed pet gets one history entry. If-Match does not apply (it names one entry): each ' +
    'entry carries its own ifVersion, which the service requires on every entry when it requires If-Match. ' +
    'Idempotency-Key stores the whole outcome. A batch counts as one request against the rate limits. ' +
    stored(['pet_not_found', 'insufficient_stock', 'precondition_failed']),
  parameters: [ref('parameters', 'IdempotencyKey')],
  requestBody: { required: true, content: jsonContent(ref('schemas', 'BatchRequest')) },
  responses: responses({
    ok: {
      description: 'Every entry as the batch left it, in the request’s order, each with its new version.',
      headers: REPLAYABLE,
      schema: ref('schemas', 'BatchResult'),
    },
    ...writeAnswers(
      bodyLimitBytes,
      `changes is not an array of 1 to ${BATCH_MAX} entries, an entry is not valid (the message names its index) ` +
        'or names a pet another entry names',
    ),
    pet_not_found: { description: `pet_not_found: an entry names no pet. ${BATCH_REFUSAL}`, headers: REPLAYABLE },
    insufficient_stock: {
      description:
        'insufficient_stock / quantity_limit_exceeded / quantity_below_reserved: an adjustment would take ' +
        'more than is available or a stock above 2147483647, or a set would go below what is reserved. ' +
        `${BATCH_REFUSAL} Or ${IN_USE}`,
      headers: REPLAYABLE,
    },
    precondition_failed: {
      description: `precondition_failed: an entry is not at its ifVersion. ${BATCH_REFUSAL}`,
      headers: REPLAYABLE,
    },
    precondition_required: {
      description: 'precondition_required: the service requires a condition, and an entry has no ifVersion.',
    },
  }),
});
