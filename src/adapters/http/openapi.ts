import { PLAN_POLICIES } from '../../domain/plan.js';
import { type ErrorCode, SUCCESS_STATUS, statusOf } from './error-table.js';
import { HEADERS, type Json, type JsonObject, SCHEMAS } from './openapi-components.js';
import { PAGE_LIMIT_MAX } from './request-schemas.js';

/** Base URLs of the two environments; both end in the version segment /v1. */
export interface OpenApiServers {
  readonly production: string;
  readonly staging: string;
}

const LIMIT_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
];
const DEPRECATION_HEADERS = ['Deprecation', 'Sunset', 'Link'];

const ref = (kind: string, name: string): JsonObject => ({ $ref: `#/components/${kind}/${name}` });

const headerRefs = (names: readonly string[]): JsonObject =>
  Object.fromEntries(['X-Request-Id', ...names].map((name) => [name, ref('headers', name)]));

const jsonContent = (schema: JsonObject): JsonObject => ({ 'application/json': { schema } });

const ERROR_BODY = jsonContent(ref('schemas', 'Error'));

/** One documented response: its description, headers and body. */
interface ResponseSpec {
  readonly description: string;
  readonly headers?: readonly string[];
  readonly schema?: JsonObject;
}

/** A response keyed by the code it carries (or `ok` for the success), so statuses come from the table. */
type Responses = Partial<Record<ErrorCode | 'ok', ResponseSpec>>;

function responses(specs: Responses, extraHeaders: readonly string[] = []): JsonObject {
  const out: Record<string, Json> = {};
  for (const [key, spec] of Object.entries(specs) as [ErrorCode | 'ok', ResponseSpec][]) {
    const status = key === 'ok' ? SUCCESS_STATUS : statusOf(key);
    out[String(status)] = {
      description: spec.description,
      headers: headerRefs([...(spec.headers ?? LIMIT_HEADERS), ...extraHeaders]),
      content: key === 'ok' ? jsonContent(spec.schema ?? {}) : ERROR_BODY,
    };
  }
  return out;
}

// Answers every /v1 operation can give once past routing. A 500 or 503 lists only X-Request-Id: when
// the limiter itself fails, there is no decision to report.
const UNAUTHORIZED: ResponseSpec = {
  description: 'unauthorized: the API key is missing, malformed, unknown or revoked.',
  headers: [...LIMIT_HEADERS, 'WWW-Authenticate'],
};
const TOO_MANY: ResponseSpec = {
  description:
    'rate_limited: a window is spent; or key_banned: 20 refusals within 60 s ban the key (or address) for ' +
    '5 min, then 15 min, then 60 min within a day.',
  headers: [...LIMIT_HEADERS, 'Retry-After'],
};
const INTERNAL: ResponseSpec = {
  description: 'internal_error: the service failed; the message carries the request id to quote.',
  headers: [],
};
const UNAVAILABLE: ResponseSpec = {
  description:
    'unavailable: a service the request needs (the shared rate limiter, when configured to fail closed) is down.',
  headers: [],
};
const BAD_PET_ID: ResponseSpec = { description: 'invalid_pet_id: petId is not a base-10 signed 64-bit integer.' };
const PET_NOT_FOUND: ResponseSpec = { description: 'pet_not_found: no pet has this id.' };

const PET_ID_PARAMETER: JsonObject = {
  name: 'petId',
  in: 'path',
  required: true,
  description: 'Id of the pet, in canonical base 10 (no +, no leading zeros, no exponent).',
  schema: { type: 'integer', format: 'int64' },
};

const listInventory: JsonObject = {
  operationId: 'listInventory',
  tags: ['inventory'],
  summary: 'List the stock levels of all pets',
  description:
    'Every tracked pet, ordered by petId ascending, streamed. Without parameters the whole list is returned; ' +
    'limit and after page through it by key (after = the last petId of the previous page).',
  parameters: [
    {
      name: 'limit',
      in: 'query',
      required: false,
      description: 'At most this many entries.',
      schema: { type: 'integer', minimum: 1, maximum: PAGE_LIMIT_MAX },
    },
    {
      name: 'after',
      in: 'query',
      required: false,
      description: 'Only entries whose petId is greater than this one.',
      schema: { type: 'integer', format: 'int64' },
    },
  ],
  responses: responses({
    ok: { description: 'The stock levels.', schema: { type: 'array', items: ref('schemas', 'InventoryItem') } },
    invalid_query: { description: 'invalid_query: limit or after is not valid.' },
    unauthorized: UNAUTHORIZED,
    rate_limited: TOO_MANY,
    internal_error: INTERNAL,
    unavailable: UNAVAILABLE,
  }),
};

const updateInventory = (bodyLimitBytes: number): JsonObject => ({
  operationId: 'updateInventory',
  tags: ['inventory'],
  summary: 'Set the stock level of one pet (experimental)',
  description:
    'Experimental: the request shape may change before it becomes stable. Sets the quantity and moves the ' +
    'status by the stock rule; the change is recorded with the key id and time.',
  'x-experimental': true,
  parameters: [PET_ID_PARAMETER],
  requestBody: { required: true, content: jsonContent(ref('schemas', 'InventoryUpdate')) },
  responses: responses({
    ok: { description: 'The updated entry.', schema: ref('schemas', 'InventoryItem') },
    invalid_body: {
      description:
        'invalid_pet_id: petId is not a signed 64-bit integer; invalid_body: the body is empty, not JSON, not an ' +
        'object, lacks quantity, has another field, or quantity is not an integer from 0 to 2147483647.',
    },
    unauthorized: UNAUTHORIZED,
    pet_not_found: PET_NOT_FOUND,
    payload_too_large: { description: `payload_too_large: the body is larger than ${bodyLimitBytes} bytes.` },
    unsupported_media_type: { description: 'unsupported_media_type: the body is not application/json.' },
    rate_limited: TOO_MANY,
    internal_error: INTERNAL,
    unavailable: UNAVAILABLE,
  }),
});

const getPetById: JsonObject = {
  operationId: 'getPetById',
  tags: ['pet'],
  summary: 'Find a pet by id (deprecated)',
  description:
    `Deprecated: answers with Deprecation, Sunset and Link headers, and with ${statusOf('gone')} gone from the ` +
    'Sunset date on. Read stock levels with listInventory.',
  deprecated: true,
  parameters: [PET_ID_PARAMETER],
  responses: {
    ...responses(
      {
        ok: { description: 'The pet.', schema: ref('schemas', 'Pet') },
        invalid_pet_id: BAD_PET_ID,
        pet_not_found: PET_NOT_FOUND,
        gone: { description: 'gone: the operation is past its sunset date.' },
      },
      DEPRECATION_HEADERS,
    ),
    ...responses({
      unauthorized: UNAUTHORIZED,
      rate_limited: TOO_MANY,
      internal_error: INTERNAL,
      unavailable: UNAVAILABLE,
    }),
  },
};

const listOrders: JsonObject = {
  operationId: 'listOrders',
  tags: ['store'],
  summary: 'List the store orders',
  description: 'Every order, ordered by id ascending.',
  responses: responses({
    ok: { description: 'The orders.', schema: { type: 'array', items: ref('schemas', 'Order') } },
    unauthorized: UNAUTHORIZED,
    rate_limited: TOO_MANY,
    internal_error: INTERNAL,
    unavailable: UNAVAILABLE,
  }),
};

const getOpenApiDocument: JsonObject = {
  operationId: 'getOpenApiDocument',
  tags: ['meta'],
  summary: 'This document',
  description:
    'Needs no key. Limited like every /v1 request: per key when a valid one is sent, otherwise per client address.',
  security: [],
  responses: responses({
    ok: { description: 'The OpenAPI document.', schema: { type: 'object' } },
    rate_limited: TOO_MANY,
    internal_error: INTERNAL,
    unavailable: UNAVAILABLE,
  }),
};

const free = PLAN_POLICIES.free;

/**
 * The OpenAPI 3.1 description of the /v1 API, for the environments in `servers` and a body limit of
 * `bodyLimitBytes`. Built once at start; paths are relative to the servers, which end in /v1.
 */
export function openApiDocument(servers: OpenApiServers, bodyLimitBytes: number): JsonObject {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Pet store inventory service',
      version: '1.0.0',
      description:
        'Stock levels of the pet store. Every operation but this document needs `Authorization: Bearer <key>`. ' +
        'Every response carries X-Request-Id and, under /v1, the rate-limit headers. Errors carry the Error body; ' +
        `an unknown path answers ${statusOf('not_found')} not_found, a known path under another method ` +
        `${statusOf('method_not_allowed')} method_not_allowed with Allow. Requests without a valid key are ` +
        `limited per client address to ${free.perMinute} a minute and ${free.perDay} a day.`,
    },
    servers: [
      { url: servers.production, description: 'production' },
      { url: servers.staging, description: 'staging' },
    ],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'inventory', description: 'Stock levels.' },
      { name: 'pet', description: 'Pets.' },
      { name: 'store', description: 'Store orders.' },
      { name: 'meta', description: 'About the API.' },
    ],
    paths: {
      '/inventory': { get: listInventory },
      '/inventory/{petId}': { patch: updateInventory(bodyLimitBytes) },
      '/pets/{petId}': { get: getPetById },
      '/store/orders': { get: listOrders },
      '/openapi.json': { get: getOpenApiDocument },
    },
    components: {
      schemas: SCHEMAS,
      headers: HEADERS,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (psk_ and 40 base62 characters) as the bearer token.',
        },
      },
    },
  };
}
