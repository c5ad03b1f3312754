import { PLAN_POLICIES } from '../../domain/plan.js';
import { DEFAULT_HOLD_LIMITS, type HoldLimits } from '../../domain/reservation.js';
import { statusOf } from './error-table.js';
import { HEADERS, type JsonObject, PARAMETERS, SCHEMAS } from './openapi-components.js';
import { EVENT_SCHEMAS, listAllStockChanges, WEBHOOKS } from './openapi-events.js';
import { exportInventory, getInventoryItem, listInventory, listStockChanges } from './openapi-inventory.js';
import { getRateLimit, KEY_SCHEMAS, withScopes } from './openapi-keys.js';
import {
  commitReservation,
  getReservation,
  RESERVATION_SCHEMAS,
  releaseReservation,
  reserveInventory,
} from './openapi-reservations.js';
import {
  BAD_PET_ID,
  INTERNAL,
  PET_ID_PARAMETER,
  PET_NOT_FOUND,
  ref,
  responses,
  TOO_MANY,
  UNAUTHORIZED,
  UNAVAILABLE,
} from './openapi-responses.js';
import { adjustInventory, batchUpdateInventory, STOCK_WRITE_SCHEMAS, updateInventory } from './openapi-stock-writes.js';

/** Base URLs of the two environments; both end in the version segment /v1. */
export interface OpenApiServers {
  readonly production: string;
  readonly staging: string;
}

const DEPRECATION_HEADERS = ['Deprecation', 'Sunset', 'Link'];

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
 * `bodyLimitBytes`, stating the limits on a key's holds. Built once at start; paths are relative to the servers, which end in /v1.
 */
export function openApiDocument(
  servers: OpenApiServers,
  bodyLimitBytes: number,
  holdLimits: HoldLimits = DEFAULT_HOLD_LIMITS,
): JsonObject {
  const holds = { perKey: holdLimits.perKey, ttlSeconds: holdLimits.ttlMs / 1_000 };
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
      // Both face integrators: OWASP API9 asks every server to say whether it is internal.
      { url: servers.production, description: 'production', 'x-internal': false },
      { url: servers.staging, description: 'staging', 'x-internal': false },
    ],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'inventory', description: 'Stock levels.' },
      { name: 'pet', description: 'Pets.' },
      { name: 'store', description: 'Store orders.' },
      { name: 'meta', description: 'About the API.' },
      { name: 'events', description: 'Webhooks the service sends to endpoints registered with the admin CLI.' },
    ],
    paths: withScopes({
      '/inventory': { get: listInventory },
      '/inventory.csv': { get: exportInventory },
      '/inventory/batch': { post: batchUpdateInventory(bodyLimitBytes) },
      '/inventory/changes': { get: listAllStockChanges },
      '/inventory/{petId}': { get: getInventoryItem, patch: updateInventory(bodyLimitBytes) },
      '/inventory/{petId}/adjustments': { post: adjustInventory(bodyLimitBytes) },
      '/inventory/{petId}/changes': { get: listStockChanges },
      '/inventory/{petId}/reservations': { post: reserveInventory(bodyLimitBytes, holds) },
      '/reservations/{reservationId}': { get: getReservation, delete: releaseReservation },
      '/reservations/{reservationId}/commit': { post: commitReservation },
      '/pets/{petId}': { get: getPetById },
      '/store/orders': { get: listOrders },
      '/rate_limit': { get: getRateLimit },
      '/openapi.json': { get: getOpenApiDocument },
    }),
    webhooks: WEBHOOKS,
    components: {
      schemas: { ...SCHEMAS, ...STOCK_WRITE_SCHEMAS, ...RESERVATION_SCHEMAS, ...KEY_SCHEMAS, ...EVENT_SCHEMAS },
      headers: HEADERS,
      parameters: PARAMETERS,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key (psk_ and 40 base62 characters) as the bearer token. Each operation names the scope ' +
            'its key needs (inventory:read for reads, inventory:write for writes) in its security requirement.',
        },
      },
    },
  };
}
