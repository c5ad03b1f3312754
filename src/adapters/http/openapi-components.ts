import { ORDER_STATUSES } from '../../domain/order.js';
import { PET_STATUSES } from '../../domain/pet-status.js';
import { PLAIN_TEXT_PATTERN } from '../../domain/plain-text.js';
import { LIMIT_MAX } from '../../domain/plan.js';
import { QUANTITY_MAX } from '../../domain/quantity.js';
import { REASON_MAX, STOCK_CHANGE_KINDS } from '../../domain/stock-change.js';
import { STOCK_REFUSAL_CODES } from '../../domain/stock-outcome.js';
import { ERROR_CODES, ERROR_STATUS } from './error-table.js';
import { BATCH_MAX } from './stock-request-schemas.js';

/** A JSON value: what the OpenAPI document is made of. */
export type Json = string | number | boolean | null | readonly Json[] | { readonly [key: string]: Json };

/** A JSON object. */
export type JsonObject = { readonly [key: string]: Json };

const int64 = (description: string): JsonObject => ({ type: 'integer', format: 'int64', description });

const named = (what: string): JsonObject => ({
  type: 'object',
  required: ['id', 'name'],
  properties: { id: int64(`Id of the ${what}.`), name: { type: 'string' } },
});

/** The reason a stock write may carry, kept in the history. */
export const REASON: JsonObject = {
  type: 'string',
  minLength: 1,
  maxLength: REASON_MAX,
  pattern: PLAIN_TEXT_PATTERN,
  description: `Why the stock changes, kept in the history: 1 to ${REASON_MAX} characters, no control characters: none of Unicode's Cc, Zl, Zp or Cf but ZWJ and ZWNJ (line separators, bidirectional controls, invisible and tag characters).`,
};

const ERROR_STATUSES = [...new Set(Object.values(ERROR_STATUS))].sort((a, b) => a - b);

/** An entry of the list: the shape every client knows, and the base of the named one. */
const INVENTORY_ITEM = {
  type: 'object',
  required: ['petId', 'quantity', 'reserved', 'available', 'status'],
  additionalProperties: false,
  description:
    'quantity is the stock on hand; reserved and available (added in 1.2) say how much of it held ' +
    'reservations set aside, and what is left.',
  properties: {
    petId: int64('Id of the pet the entry tracks; exact over the whole signed 64-bit range.'),
    quantity: {
      type: 'integer',
      format: 'int32',
      minimum: 0,
      maximum: QUANTITY_MAX,
      description: 'Current stock count.',
    },
    reserved: {
      type: 'integer',
      format: 'int32',
      minimum: 0,
      maximum: QUANTITY_MAX,
      description:
        'How much of the stock held reservations set aside, at the time of the answer: a reservation stops ' +
        'counting the moment it expires.',
    },
    available: {
      type: 'integer',
      format: 'int32',
      minimum: 0,
      maximum: QUANTITY_MAX,
      description: 'quantity - reserved: what can still be reserved or taken.',
    },
    status: { $ref: '#/components/schemas/PetStatus' },
  },
} satisfies JsonObject & { properties: JsonObject };

/** The schemas, from the domain's own enums and limits so that the document cannot drift from them. */
export const SCHEMAS: JsonObject = {
  PetStatus: { type: 'string', enum: [...PET_STATUSES], description: 'Where a pet stands in the store.' },
  InventoryItem: INVENTORY_ITEM,
  NamedInventoryItem: {
    ...INVENTORY_ITEM,
    required: ['petId', 'name', 'quantity', 'reserved', 'available', 'status'],
    description:
      'An entry of a page or a search of the list: an InventoryItem with what a person knows its pet by ' +
      '(added in 1.3).',
    properties: {
      ...INVENTORY_ITEM.properties,
      name: { type: 'string', description: 'The pet’s name.' },
      category: { $ref: '#/components/schemas/Category' },
    },
  },

  InventoryUpdate: {
    type: 'object',
    required: ['quantity'],
    additionalProperties: false,
    description:
      'Experimental. Sets the stock count. Quantity 0 makes the pet sold; stock arriving for a sold pet makes ' +
      'it available; otherwise the status is kept (pending stays pending). An unknown field is refused.',
    properties: {
      quantity: {
        type: 'integer',
        format: 'int32',
        minimum: 0,
        maximum: QUANTITY_MAX,
        description: 'The new stock count.',
      },
      reason: REASON,
    },
  },
  Error: {
    type: 'object',
    required: ['code', 'message', 'status'],
    additionalProperties: false,
    properties: {
      code: { type: 'string', enum: [...ERROR_CODES], description: 'Machine-readable error code.' },
      message: { type: 'string', description: 'Human-readable description.' },
      status: {
        type: 'integer',
        format: 'int32',
        minimum: 400,
        maximum: 599,
        enum: ERROR_STATUSES,
        description: 'The HTTP status code.',
      },
      errors: {
        type: 'array',
        description: 'Only on a refused batch: every refused entry, by its index in the request.',
        items: {
          type: 'object',
          required: ['index', 'code', 'message'],
          additionalProperties: false,
          properties: {
            index: {
              type: 'integer',
              format: 'int32',
              minimum: 0,
              maximum: BATCH_MAX - 1,
              description: 'The entry’s place in changes.',
            },
            code: { type: 'string', enum: [...STOCK_REFUSAL_CODES] },
            message: { type: 'string' },
          },
        },
      },
    },
  },
  StockChange: {
    type: 'object',
    required: [
      'id',
      'petId',
      'kind',
      'quantityBefore',
      'quantityAfter',
      'statusBefore',
      'statusAfter',
      'keyId',
      'keyName',
      'at',
      'reason',
    ],
    additionalProperties: false,
    description: 'One recorded change of a pet’s stock: who changed what, how, why, when, and what it was before.',
    properties: {
      id: int64('Id of the change; it grows with every change recorded. Page older changes with before=<id>.'),
      petId: int64('Id of the pet.'),
      kind: {
        type: 'string',
        enum: [...STOCK_CHANGE_KINDS],
        description:
          'set: the stock was set to a count (PATCH); adjust: moved by a delta (adjustments); ' +
          'reservation_commit: lowered by the commit of a reservation.',
      },
      quantityBefore: { type: 'integer', format: 'int32', minimum: 0, maximum: QUANTITY_MAX },
      quantityAfter: { type: 'integer', format: 'int32', minimum: 0, maximum: QUANTITY_MAX },
      statusBefore: { $ref: '#/components/schemas/PetStatus' },
      statusAfter: { $ref: '#/components/schemas/PetStatus' },
      keyId: { type: 'string', description: 'Id of the API key that made the change (never the key itself).' },
      keyName: {
        type: ['string', 'null'],
        description:
          'Name of the API key that made the change, as the key is named now (added in 1.3); null when it has ' +
          'none, or is no longer stored.',
      },
      at: { type: 'string', format: 'date-time', description: 'When, in RFC 3339 UTC with milliseconds.' },
      reason: { ...REASON, type: ['string', 'null'], description: 'Why, as the request said; null when it did not.' },
    },
  },
  Category: named('category'),
  Tag: named('tag'),
  Pet: {
    type: 'object',
    required: ['id', 'name', 'photoUrls', 'tags', 'status'],
    additionalProperties: false,
    properties: {
      id: int64('Id of the pet.'),
      name: { type: 'string' },
      category: { $ref: '#/components/schemas/Category' },
      photoUrls: { type: 'array', items: { type: 'string' } },
      tags: { type: 'array', items: { $ref: '#/components/schemas/Tag' } },
      status: { $ref: '#/components/schemas/PetStatus' },
    },
  },
  Order: {
    type: 'object',
    required: ['id', 'petId', 'quantity', 'shipDate', 'status', 'complete'],
    additionalProperties: false,
    properties: {
      id: int64('Id of the order.'),
      petId: int64('Id of the pet ordered.'),
      quantity: { type: 'integer', format: 'int32', minimum: 0, maximum: QUANTITY_MAX },
      shipDate: { type: 'string', format: 'date-time' },
      status: { type: 'string', enum: [...ORDER_STATUSES] },
      complete: { type: 'boolean' },
    },
  },
};

const header = (description: string, schema: JsonObject, example: Json, required = true): JsonObject => ({
  description,
  required,
  schema,
  example,
});

// A limit and what is left of it are at most LIMIT_MAX (1e9), which int32 holds.
const count: JsonObject = { type: 'integer', format: 'int32', minimum: 0, maximum: LIMIT_MAX };
// Unix seconds of a JavaScript date: at most 8.64e12 (the largest date), past what int32 holds.
const unixSeconds: JsonObject = { type: 'integer', format: 'int64', minimum: 0, maximum: 8_640_000_000_000 };
const text: JsonObject = { type: 'string' };

/**
 * The response headers, each under the name of the field it is sent as; where one field means different
 * things on different answers, a suffix after a dot tells them apart (`Link.next` is sent as `Link`). A
 * `required` header is on every response that lists it.
 */
export const HEADERS: JsonObject = {
  'X-RateLimit-Limit': header('Requests allowed in the window nearest exhaustion.', count, 60),
  'X-RateLimit-Remaining': header('Requests left in the window nearest exhaustion.', count, 59),
  'X-RateLimit-Reset': header('Unix time, in seconds rounded up, when Remaining next rises.', unixSeconds, 1767225660),
  'RateLimit-Policy': header(
    'IETF draft field: every window that binds, with its quota (q) and length in seconds (w).',
    text,
    '"minute";q=60;w=60, "day";q=1000;w=86400',
  ),
  RateLimit: header(
    'IETF draft field: the window nearest exhaustion, its remaining requests (r) and seconds until they rise (t).',
    text,
    '"minute";r=59;t=60',
  ),
  'X-Request-Id': header(
    'The id of the request: the client’s own when it sent 1 to 128 of A-Z a-z 0-9 . _ -, otherwise a new one.',
    { type: 'string', pattern: '^[A-Za-z0-9._-]{1,128}$' },
    '3f6c1c2e-4a8b-4c1e-9f43-2b8e2f0d9a11',
  ),
  'Retry-After': header(
    'Whole seconds to wait before retrying (rounded up).',
    { type: 'integer', format: 'int32', minimum: 1, maximum: 2_147_483_647 },
    30,
  ),
  'WWW-Authenticate': header('The scheme and realm to authenticate with (RFC 6750).', text, 'Bearer realm="petstore"'),
  'WWW-Authenticate.scope': header(
    'RFC 6750 section 3.1: the scope the key lacks.',
    text,
    'Bearer error="insufficient_scope", scope="inventory:write"',
  ),
  Deprecation: header('RFC 9745: when the operation was deprecated, as @Unix-seconds.', text, '@1767225600'),
  Sunset: header(
    'RFC 8594: when the operation stops answering, as an HTTP-date.',
    text,
    'Wed, 01 Jul 2026 00:00:00 GMT',
  ),
  Link: header(
    'Where the deprecation and the sunset are described (rel="deprecation", rel="sunset").',
    text,
    '<https://api.petstore.example/v1/openapi.json>; rel="deprecation"; type="application/json"',
  ),
  ETag: header(
    'The entry’s version as a strong entity tag. Send it in If-Match to update only that version.',
    { type: 'string', pattern: '^"[1-9][0-9]*"$' },
    '"7"',
  ),
  'ETag.list': header(
    'A weak entity tag of the whole list; send it in If-None-Match to be answered 304 while the list is ' +
      'unchanged. Absent on a paged list.',
    { type: 'string', pattern: '^W/"[!#-~]+"$' },
    'W/"0f5b8c2e-4d1a-4f7e-9a0b-3c6d2e1f8a90.12.3"',
    false,
  ),
  'Link.next': header(
    'RFC 8288: the next page, present only when more entries may follow.',
    { type: 'string', pattern: '^<[^>]+>; rel="next"$' },
    '</v1/inventory/42/changes?before=1234&limit=100>; rel="next"',
    false,
  ),
  'Link.feed': header(
    'RFC 8288: where to read on, sent with every page of the feed: after the last change of this page, or ' +
      'where this page started when it is empty.',
    { type: 'string', pattern: '^<[^>]+>; rel="next"$' },
    '</v1/inventory/changes?after=4711.1234&limit=100>; rel="next"',
  ),
  Location: header(
    'Where the new reservation is read, committed and released.',
    { type: 'string', pattern: '^/v1/reservations/res_[0-9a-f]{32}$' },
    '/v1/reservations/res_4f1c0a9be2d34c7a8b6e5d4c3b2a1908',
  ),
  'Idempotent-Replayed': header(
    'Present, and true, when the answer is the stored outcome of an earlier request with the same ' +
      'Idempotency-Key: nothing was written this time.',
    { type: 'string', enum: ['true'] },
    'true',
    false,
  ),
};

const requestHeader = (name: string, description: string, schema: JsonObject, example: string): JsonObject => ({
  name,
  in: 'header',
  required: false,
  description,
  schema,
  example,
});

/** The request headers the operations take, all optional (If-Match unless the service requires it). */
export const PARAMETERS: JsonObject = {
  IfMatch: requestHeader(
    'If-Match',
    'RFC 9110 section 13.1.1: update only if the entry’s ETag is one of these strong tags, or * for any ' +
      'existing entry. Weak tags never match. A stale tag: 412 with the current ETag, nothing written. ' +
      'Not * nor a list of entity tags: 400 invalid_if_match. Required (428 without it) when the service ' +
      'is configured so.',
    text,
    '"7"',
  ),
  IfNoneMatch: requestHeader(
    'If-None-Match',
    'RFC 9110 section 13.1.2: answer 304 without a body when one of these tags (or *) names the current ' +
      'representation, by weak comparison. A value that is not a list of entity tags is ignored.',
    text,
    'W/"0f5b8c2e-4d1a-4f7e-9a0b-3c6d2e1f8a90.12.3"',
  ),
  IdempotencyKey: requestHeader(
    'Idempotency-Key',
    'Makes a retry safe: a request with a key already used by this API key, on the same method, path and ' +
      'body bytes, is answered the stored outcome (status, body, ETag) with Idempotent-Replayed: true and ' +
      'writes nothing. Kept 24 hours. The same key on another request: 422; while its first request is ' +
      'still being processed: 409.',
    { type: 'string', pattern: '^[!-~]{1,255}$', minLength: 1, maxLength: 255 },
    '5b0f7c9e-2a41-4d6b-8f3e-91c2d7a4e610',
  ),
};
