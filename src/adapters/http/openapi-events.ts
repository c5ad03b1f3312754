import { QUANTITY_MAX } from '../../domain/quantity.js';
import { STOCK_CHANGE_KINDS } from '../../domain/stock-change.js';
import { STOCK_EVENT_TYPES } from '../../domain/stock-event.js';
import { type JsonObject, REASON, SCHEMAS } from './openapi-components.js';
import { INTERNAL, LIMIT_HEADERS, ref, responses, TOO_MANY, UNAUTHORIZED, UNAVAILABLE } from './openapi-responses.js';
import { HISTORY_LIMIT_DEFAULT, HISTORY_LIMIT_MAX } from './request-schemas.js';

const stockChange = SCHEMAS.StockChange as JsonObject & {
  readonly required: readonly string[];
  readonly properties: JsonObject;
};

export const listAllStockChanges: JsonObject = {
  operationId: 'listAllStockChanges',
  tags: ['inventory'],
  summary: 'Follow every stock change of every pet (the change feed)',
  description:
    'Every stock change of every pet, oldest first, each with its cursor. Pass the last cursor seen as ' +
    'after= to read on: a reader that does so never misses a change and never sees one twice, whatever ' +
    'the number of instances writing. Link rel="next" always names where to read on (after the last ' +
    'change of this page, or where this page started when it is empty); poll it. after=latest starts at ' +
    'the head: it answers the changes committed since the head was read (mostly none), and its link names ' +
    'where to read on, so a reader that only wants what happens from now on never reads the history.',
  parameters: [
    {
      name: 'after',
      in: 'query',
      required: false,
      description:
        'Only changes after the change with this cursor; latest: after the newest change (the head); every ' +
        'change when absent.',
      schema: {
        type: 'string',
        pattern: '^((0|[1-9][0-9]{0,18})\\.(0|[1-9][0-9]{0,18})|latest)$',
        maxLength: 39,
      },
    },
    {
      name: 'limit',
      in: 'query',
      required: false,
      description: `At most this many changes; ${HISTORY_LIMIT_DEFAULT} when absent.`,
      schema: { type: 'integer', format: 'int32', minimum: 1, maximum: HISTORY_LIMIT_MAX },
    },
  ],
  responses: responses({
    ok: {
      description: 'The changes, oldest first; an empty array when none followed the cursor yet.',
      headers: [...LIMIT_HEADERS, 'Link.feed'],
      schema: { type: 'array', items: ref('schemas', 'FeedChange') },
    },
    invalid_query: {
      description: 'invalid_query: after is neither a cursor of this feed nor latest, or limit is not valid.',
    },
    unauthorized: UNAUTHORIZED,
    rate_limited: TOO_MANY,
    internal_error: INTERNAL,
    unavailable: UNAVAILABLE,
  }),
};

const EVENT_DATA: JsonObject = {
  type: 'object',
  required: [
    'petId',
    'changeId',
    'kind',
    'quantityBefore',
    'quantityAfter',
    'statusBefore',
    'statusAfter',
    'reason',
    'at',
  ],
  additionalProperties: false,
  properties: {
    petId: { type: 'integer', format: 'int64', description: 'Id of the pet, exact (a JSON integer).' },
    changeId: { type: 'integer', format: 'int64', description: 'Id of the change, as the history lists it.' },
    kind: { type: 'string', enum: [...STOCK_CHANGE_KINDS] },
    quantityBefore: { type: 'integer', format: 'int32', minimum: 0, maximum: QUANTITY_MAX },
    quantityAfter: { type: 'integer', format: 'int32', minimum: 0, maximum: QUANTITY_MAX },
    statusBefore: ref('schemas', 'PetStatus'),
    statusAfter: ref('schemas', 'PetStatus'),
    reason: { ...REASON, type: ['string', 'null'], description: 'Why, as the request said; null when it did not.' },
    at: { type: 'string', format: 'date-time', description: 'When the change was made.' },
  },
};

/** The schemas of the feed and of the webhooks' payloads. */
export const EVENT_SCHEMAS: JsonObject = {
  FeedChange: {
    type: 'object',
    required: [...stockChange.required, 'cursor'],
    additionalProperties: false,
    description: 'A change as the history lists it, with where the feed reads on after it.',
    properties: {
      ...stockChange.properties,
      cursor: { type: 'string', description: 'Pass as after= to read the changes that follow this one.' },
    },
  },
  StockEvent: {
    type: 'object',
    required: ['type', 'timestamp', 'data'],
    additionalProperties: false,
    description: 'The body of every webhook delivery.',
    properties: {
      type: { type: 'string', enum: [...STOCK_EVENT_TYPES] },
      timestamp: { type: 'string', format: 'date-time', description: 'When the event happened: the change’s time.' },
      data: EVENT_DATA,
    },
  },
};

const SIGNATURE_HEADERS: JsonObject[] = (
  [
    ['webhook-id', 'The delivery’s id: the same on every retry of it. Deduplicate on it.'],
    ['webhook-timestamp', 'Unix seconds of this attempt; refuse one too far from your clock.'],
    ['webhook-signature', 'v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>"> with the endpoint’s secret.'],
  ] as const
).map(([name, description]) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
}));

const WHEN: Readonly<Record<string, string>> = {
  'inventory.updated': 'Every stock change.',
  'inventory.low_stock':
    'A change that takes the quantity from above the endpoint’s low-stock threshold to at or below it; once per crossing.',
  'inventory.out_of_stock': 'A change that takes the quantity from above 0 to 0; once per crossing.',
  'inventory.back_in_stock': 'A change that takes the quantity from 0 to above 0; once per crossing.',
};

/**
 * The webhooks (OpenAPI 3.1): what the service POSTs to a registered endpoint, signed per the Standard
 * Webhooks specification. Endpoints are managed with the admin CLI (`webhooks add`).
 */
export const WEBHOOKS: JsonObject = Object.fromEntries(
  STOCK_EVENT_TYPES.map((type) => [
    type,
    {
      post: {
        operationId: `on${type
          .split(/[._]/)
          .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
          .join('')}`,
        tags: ['events'],
        summary: `${type}: ${WHEN[type]}`,
        description:
          `${WHEN[type]} Delivered at least once, signed per the Standard Webhooks specification; events of one ` +
          'pet reach an endpoint in the order of their changes. Any 2xx within 10 s is success; anything else ' +
          'is retried with exponential backoff and jitter for up to 24 h, with the same webhook-id.',
        security: [],
        parameters: [...SIGNATURE_HEADERS],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: ref('schemas', 'StockEvent') } },
        },
        responses: {
          '200': { description: 'Received. Any 2xx will do; the body is ignored.' },
        },
      },
    },
  ]),
);
