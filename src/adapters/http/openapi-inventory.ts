import type { JsonObject } from './openapi-components.js';
import {
  BAD_PET_ID,
  INTERNAL,
  LIMIT_HEADERS,
  PET_ID_PARAMETER,
  PET_NOT_FOUND,
  ref,
  responses,
  TOO_MANY,
  UNAUTHORIZED,
  UNAVAILABLE,
} from './openapi-responses.js';
import { HISTORY_LIMIT_DEFAULT, HISTORY_LIMIT_MAX, MAX_AVAILABLE_MAX, PAGE_LIMIT_MAX } from './request-schemas.js';

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
    'entries carries Link rel="next" when more may follow, and no ETag. status and maxAvailable narrow the ' +
    'list (both must hold) and combine with paging: the next link carries them. A filtered list without ' +
    'limit or after has a weak ETag of its own, which changes with the list and with the filter. A filtered ' +
    'page reads the matching pets and few others, however large the store.',
  parameters: [
    pageLimit(PAGE_LIMIT_MAX, 'At most this many entries.'),
    int64Query('after', 'Only entries whose petId is greater than this one.'),
    {
      name: 'status',
      in: 'query',
      required: false,
      description: 'Only entries of these statuses: one or more, separated by commas (available,pending).',
      style: 'form',
      explode: false,
      schema: { type: 'array', minItems: 1, items: ref('schemas', 'PetStatus') },
    },
    {
      name: 'maxAvailable',
      in: 'query',
      required: false,
      description: 'Only entries whose available (quantity less reserved) is at or below this: low stock.',
      schema: { type: 'integer', format: 'int32', minimum: 0, maximum: MAX_AVAILABLE_MAX },
    },
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
    invalid_query: { description: 'invalid_query: limit, after, status or maxAvailable is not valid.' },
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
