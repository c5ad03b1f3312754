import { statusOf } from './error-table.js';
import type { JsonObject } from './openapi-components.js';
import {
  BAD_PET_ID,
  INTERNAL,
  jsonContent,
  LIMIT_HEADERS,
  PET_ID_PARAMETER,
  PET_NOT_FOUND,
  ref,
  responses,
  TOO_MANY,
  UNAUTHORIZED,
  UNAVAILABLE,
} from './openapi-responses.js';
import { HISTORY_LIMIT_DEFAULT, HISTORY_LIMIT_MAX, PAGE_LIMIT_MAX } from './request-schemas.js';

const pageLimit = (max: number, description: string): JsonObject => ({
  name: 'limit',
  in: 'query',
  required: false,
  description,
  schema: { type: 'integer', format: 'int32', minimum: 1, maximum: max },
});

const int64Query = (name: string, description: string, minimum?: number): JsonObject => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type: 'integer', format: 'int64', ...(minimum === undefined ? {} : { minimum }) },
});

const ITEM = ref('schemas', 'InventoryItem');

export const listInventory: JsonObject = {
  operationId: 'listInventory',
  tags: ['inventory'],
  summary: 'List the stock levels of all pets',
  description:
    'Every tracked pet, ordered by petId ascending, streamed. Without parameters the whole list is returned, ' +
    'with a weak ETag; If-None-Match with that tag answers 304 without a body while the list is unchanged. ' +
    'limit and after page through it by key (after = the last petId of the previous page); a page of limit ' +
    'entries carries Link rel="next" when more may follow, and no ETag.',
  parameters: [
    pageLimit(PAGE_LIMIT_MAX, 'At most this many entries.'),
    int64Query('after', 'Only entries whose petId is greater than this one.'),
    ref('parameters', 'IfNoneMatch'),
  ],
  responses: responses({
    ok: {
      description: 'The stock levels.',
      headers: [...LIMIT_HEADERS, 'ETag.list', 'Link.next'],
      schema: { type: 'array', items: ITEM },
    },
    not_modified: {
      description: 'The list is unchanged since the ETag that If-None-Match names; no body.',
      headers: [...LIMIT_HEADERS, 'ETag.list'],
    },
    invalid_query: { description: 'invalid_query: limit or after is not valid.' },
    unauthorized: UNAUTHORIZED,
    rate_limited: TOO_MANY,
    internal_error: INTERNAL,
    unavailable: UNAVAILABLE,
  }),
};

export const getInventoryItem: JsonObject = {
  operationId: 'getInventoryItem',
  tags: ['inventory'],
  summary: 'Read the stock level of one pet',
  description:
    'The entry, with its version as a strong ETag: send it in If-Match to update the entry only if nobody ' +
    'changed it since. If-None-Match with the current ETag answers 304 without a body.',
  parameters: [PET_ID_PARAMETER, ref('parameters', 'IfNoneMatch')],
  responses: responses({
    ok: { description: 'The entry.', headers: [...LIMIT_HEADERS, 'ETag'], schema: ITEM },
    not_modified: {
      description: 'The entry is at the version If-None-Match names; no body.',
      headers: [...LIMIT_HEADERS, 'ETag'],
    },
    invalid_pet_id: BAD_PET_ID,
    unauthorized: UNAUTHORIZED,
    pet_not_found: PET_NOT_FOUND,
    rate_limited: TOO_MANY,
    internal_error: INTERNAL,
    unavailable: UNAVAILABLE,
  }),
};

const REPLAYABLE = [...LIMIT_HEADERS, 'Idempotent-Replayed'];

export const updateInventory = (bodyLimitBytes: number): JsonObject => ({
  operationId: 'updateInventory',
  tags: ['inventory'],
  summary: 'Set the stock level of one pet (experimental)',
  description:
    'Experimental: the request shape may change before it becomes stable. Sets the quantity and moves the ' +
    'status by the stock rule; the change is recorded with the key id and time. If-Match makes the update ' +
    'conditional on the ETag read before; Idempotency-Key makes a retry safe. Every check of the request ' +
    `(${statusOf('invalid_body')}, ${statusOf('precondition_required')}) comes before the write and is not ` +
    `stored under an Idempotency-Key; the outcomes ${statusOf('pet_not_found')} and ` +
    `${statusOf('precondition_failed')} are, like a success.`,
  'x-experimental': true,
  parameters: [PET_ID_PARAMETER, ref('parameters', 'IfMatch'), ref('parameters', 'IdempotencyKey')],
  requestBody: { required: true, content: jsonContent(ref('schemas', 'InventoryUpdate')) },
  responses: responses({
    ok: { description: 'The updated entry, with its new ETag.', headers: [...REPLAYABLE, 'ETag'], schema: ITEM },
    invalid_body: {
      description:
        'invalid_pet_id: petId is not a signed 64-bit integer; invalid_body: the body is empty, not JSON, not an ' +
        'object, lacks quantity, has another field, or quantity is not an integer from 0 to 2147483647; ' +
        'invalid_idempotency_key: Idempotency-Key is not 1 to 255 visible ASCII characters; ' +
        'invalid_if_match: If-Match is neither * nor a list of entity tags.',
    },
    unauthorized: UNAUTHORIZED,
    pet_not_found: { description: 'pet_not_found: no pet has this id.', headers: REPLAYABLE },
    idempotency_key_in_use: {
      description:
        'idempotency_key_in_use: the first request with this Idempotency-Key is still being processed; retry ' +
        'once it has been answered.',
    },
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
  }),
});

export const listStockChanges: JsonObject = {
  operationId: 'listStockChanges',
  tags: ['inventory'],
  summary: 'List the stock changes of one pet',
  description:
    'Who changed the pet’s stock, when, from what and to what: newest first, a page at a time. When older ' +
    'changes exist, Link rel="next" names the next page (before = the last id of this page).',
  parameters: [
    PET_ID_PARAMETER,
    pageLimit(HISTORY_LIMIT_MAX, `At most this many changes; ${HISTORY_LIMIT_DEFAULT} when absent.`),
    int64Query('before', 'Only changes older than the change with this id.', 1),
  ],
  responses: responses({
    ok: {
      description: 'The changes, newest first; an empty array when the pet has none.',
      headers: [...LIMIT_HEADERS, 'Link.next'],
      schema: { type: 'array', items: ref('schemas', 'StockChange') },
    },
    invalid_query: {
      description: 'invalid_pet_id: petId is not a signed 64-bit integer; invalid_query: limit or before is not valid.',
    },
    unauthorized: UNAUTHORIZED,
    pet_not_found: PET_NOT_FOUND,
    rate_limited: TOO_MANY,
    internal_error: INTERNAL,
    unavailable: UNAVAILABLE,
  }),
};
