import { PET_NAME_MAX } from '../../domain/pet.js';
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
const NAMED_ITEM = ref('schemas', 'NamedInventoryItem');

const SEARCH_PARAMETER: JsonObject = {
  name: 'q',
  in: 'query',
  required: false,
  description: 'Only pets whose name holds this text, letter case aside (Maple finds maple and MAPLEWOOD).',
  schema: { type: 'string', minLength: 1, maxLength: PET_NAME_MAX },
};

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
    'page reads the matching pets and few others, however large the store. The entries of a page (limit) ' +
    "and of a search (q) carry the pet's name, and its category when it has one (added in 1.3): a page " +
    'of the stock as a person reads it is one request. q finds pets by part of their name, letter case ' +
    'aside, and combines with the filters and paging; a page of it reads the matching pets, not every ' +
    'pet, for a text of three characters or more. GET /inventory.csv answers the same list as CSV.',
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
    SEARCH_PARAMETER,
    ref('parameters', 'IfNoneMatch'),
  ],
  responses: responses({
    ok: {
      description: 'The stock levels.',
      headers: [...LIMIT_HEADERS, 'ETag.list', 'Link.next'],
      schema: { type: 'array', items: { anyOf: [NAMED_ITEM, ITEM] } },
    },
    not_modified: {
      description: 'The list is unchanged since the ETag that If-None-Match names; no body.',
      headers: [...LIMIT_HEADERS, 'ETag.list'],
    },
    invalid_query: { description: 'invalid_query: limit, after, status, maxAvailable or q is not valid.' },
    unauthorized: UNAUTHORIZED,
    rate_limited: TOO_MANY,
    internal_error: INTERNAL,
    unavailable: UNAVAILABLE,
  }),
};

export const exportInventory: JsonObject = {
  operationId: 'exportInventory',
  tags: ['inventory'],
  summary: 'The stock list as CSV',
  description:
    'Every entry the filters select (status, maxAvailable, q, after; every page, limit aside), ordered by ' +
    'petId, as CSV (RFC 4180, CRLF line ends, UTF-8) streamed as it is read, for a spreadsheet: a header ' +
    'line, then petId, name, category (empty when none), quantity, reserved, available, status. A text ' +
    'that a spreadsheet would run as a formula (it starts with =, +, -, @, a tab or a carriage return) ' +
    'starts with an apostrophe.',
  parameters: [
    int64Query('after', 'Only entries whose petId is greater than this one.'),
    ...(listInventory.parameters as JsonObject[]).filter((p) => p.name === 'status' || p.name === 'maxAvailable'),
    SEARCH_PARAMETER,
  ],
  responses: responses({
    ok: {
      description: 'The stock levels as CSV.',
      headers: LIMIT_HEADERS,
      content: { 'text/csv; charset=utf-8': { schema: { type: 'string' } } },
    },
    invalid_query: { description: 'invalid_query: after, status, maxAvailable or q is not valid.' },
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
