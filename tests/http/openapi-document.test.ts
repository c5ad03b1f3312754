import { Validator } from '@seriousme/openapi-schema-validator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/adapters/http/error-table.js';
import { openApiDocument } from '../../src/adapters/http/openapi.js';
import { type HttpFixture, startHttpFixture } from './support/http-fixture.js';
import { DOCUMENT, TEST_SERVERS } from './support/openapi-contract.js';

type Node = Record<string, unknown>;

const at = (node: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((current, key) => (current as Node | undefined)?.[key], node);

const OPERATIONS: readonly [string, string, string][] = [
  ['/inventory', 'get', 'listInventory'],
  ['/inventory.csv', 'get', 'exportInventory'],
  ['/inventory/batch', 'post', 'batchUpdateInventory'],
  ['/inventory/changes', 'get', 'listAllStockChanges'],
  ['/inventory/{petId}', 'get', 'getInventoryItem'],
  ['/inventory/{petId}', 'patch', 'updateInventory'],
  ['/inventory/{petId}/adjustments', 'post', 'adjustInventory'],
  ['/inventory/{petId}/changes', 'get', 'listStockChanges'],
  ['/inventory/{petId}/reservations', 'post', 'reserveInventory'],
  ['/reservations/{reservationId}', 'get', 'getReservation'],
  ['/reservations/{reservationId}', 'delete', 'releaseReservation'],
  ['/reservations/{reservationId}/commit', 'post', 'commitReservation'],
  ['/pets/{petId}', 'get', 'getPetById'],
  ['/store/orders', 'get', 'listOrders'],
  ['/rate_limit', 'get', 'getRateLimit'],
  ['/openapi.json', 'get', 'getOpenApiDocument'],
];

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document by the official schema', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(DOCUMENT) as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('is version 1.0.0, for the production and the staging base URLs, both ending in /v1', () => {
    expect(at(DOCUMENT, 'openapi')).toBe('3.1.0');
    expect(at(DOCUMENT, 'info', 'version')).toBe('1.0.0');
    expect(at(DOCUMENT, 'servers')).toEqual([
      { url: TEST_SERVERS.production, description: 'production', 'x-internal': false },
      { url: TEST_SERVERS.staging, description: 'staging', 'x-internal': false },
    ]);
  });

  it('takes its servers from the options it is built with', () => {
    const other = openApiDocument({ production: 'https://p.example/v1', staging: 'https://s.example/v1' }, 1024);
    expect(at(other, 'servers', '0', 'url')).toBe('https://p.example/v1');
    expect(at(other, 'servers', '1', 'url')).toBe('https://s.example/v1');
  });

  it('requires bearer authentication globally, and none for the document itself', () => {
    expect(at(DOCUMENT, 'components', 'securitySchemes', 'bearerAuth')).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    expect(at(DOCUMENT, 'security')).toEqual([{ bearerAuth: [] }]);
    expect(at(DOCUMENT, 'paths', '/openapi.json', 'get', 'security')).toEqual([]);
  });

  it('documents every operation under its operationId, with a summary', () => {
    for (const [path, method, operationId] of OPERATIONS) {
      expect(at(DOCUMENT, 'paths', path, method, 'operationId')).toBe(operationId);
      expect(at(DOCUMENT, 'paths', path, method, 'summary')).toEqual(expect.any(String));
    }
    const documented = Object.values(at(DOCUMENT, 'paths') as Record<string, Node>).flatMap(Object.keys);
    expect(documented).toHaveLength(OPERATIONS.length);
  });

  it('states the scope of every operation that needs a key, and its 403 with the challenge', () => {
    for (const [path, method, operationId] of OPERATIONS) {
      if (operationId === 'getOpenApiDocument') continue;
      const scope = method === 'get' ? 'inventory:read' : 'inventory:write';
      expect(at(DOCUMENT, 'paths', path, method, 'security'), operationId).toEqual([{ bearerAuth: [scope] }]);
      expect(at(DOCUMENT, 'paths', path, method, 'responses', '403', 'headers', 'WWW-Authenticate')).toEqual({
        $ref: '#/components/headers/WWW-Authenticate.scope',
      });
    }
    expect(at(DOCUMENT, 'paths', '/openapi.json', 'get', 'security')).toEqual([]);
    expect(at(DOCUMENT, 'components', 'schemas', 'Scope', 'enum')).toEqual(['inventory:read', 'inventory:write']);
  });

  it('marks updateInventory experimental and getPetById deprecated', () => {
    expect(at(DOCUMENT, 'paths', '/inventory/{petId}', 'patch', 'x-experimental')).toBe(true);
    expect(at(DOCUMENT, 'paths', '/inventory/{petId}', 'patch', 'description')).toMatch(/^Experimental: /);
    expect(at(DOCUMENT, 'paths', '/pets/{petId}', 'get', 'deprecated')).toBe(true);
  });

  it('documents petId as int64, the status enum and a closed InventoryUpdate', () => {
    expect(at(DOCUMENT, 'components', 'schemas', 'InventoryItem', 'properties', 'petId')).toMatchObject({
      type: 'integer',
      format: 'int64',
    });
    expect(at(DOCUMENT, 'components', 'schemas', 'PetStatus', 'enum')).toEqual(['available', 'pending', 'sold']);
    expect(at(DOCUMENT, 'components', 'schemas', 'InventoryUpdate')).toMatchObject({
      required: ['quantity'],
      additionalProperties: false,
      properties: { quantity: { type: 'integer', minimum: 0, maximum: 2147483647 } },
    });
    expect(at(DOCUMENT, 'components', 'schemas', 'Error', 'required')).toEqual(['code', 'message', 'status']);
    expect(at(DOCUMENT, 'components', 'schemas', 'Error', 'properties', 'code', 'enum')).toEqual([...ERROR_CODES]);
  });

  it('lists in the Error enum only codes the HTTP API answers: none of the admin CLI’s, no retired one', () => {
    const codes = at(DOCUMENT, 'components', 'schemas', 'Error', 'properties', 'code', 'enum') as string[];
    for (const gone of [
      'invalid_quantity',
      'duplicate_pet',
      'duplicate_order',
      'key_not_found',
      'key_inactive',
      'invalid_expiry',
    ]) {
      expect(codes).not.toContain(gone);
    }
    expect(codes).toEqual(
      expect.arrayContaining([
        'precondition_failed',
        'precondition_required',
        'idempotency_key_reused',
        'idempotency_key_in_use',
        'invalid_idempotency_key',
        'invalid_if_match',
        'key_expired',
        'insufficient_scope',
        'insufficient_stock',
        'quantity_limit_exceeded',
      ]),
    );
  });

  it('documents the conditional and idempotency request headers on the operations that take them', () => {
    const headerParameters = (path: string, method: string): string[] =>
      (at(DOCUMENT, 'paths', path, method, 'parameters') as Node[])
        .map((parameter) => {
          const target =
            typeof parameter.$ref === 'string' ? at(DOCUMENT, ...parameter.$ref.slice(2).split('/')) : parameter;
          return target as Node;
        })
        .filter((parameter) => parameter.in === 'header')
        .map((parameter) => String(parameter.name));
    expect(headerParameters('/inventory', 'get')).toEqual(['If-None-Match']);
    expect(headerParameters('/inventory/{petId}', 'get')).toEqual(['If-None-Match']);
    expect(headerParameters('/inventory/{petId}', 'patch')).toEqual(['If-Match', 'Idempotency-Key']);
    expect(headerParameters('/inventory/{petId}/adjustments', 'post')).toEqual(['If-Match', 'Idempotency-Key']);
  });

  it('documents ETag, Idempotent-Replayed, Link and the 304, 409, 412, 422 and 428 answers', () => {
    const headersOf = (path: string, method: string, status: string): string[] =>
      Object.keys(at(DOCUMENT, 'paths', path, method, 'responses', status, 'headers') as Node);
    expect(headersOf('/inventory', 'get', '200')).toEqual(expect.arrayContaining(['ETag', 'Link']));
    expect(headersOf('/inventory', 'get', '304')).toContain('ETag');
    expect(at(DOCUMENT, 'paths', '/inventory', 'get', 'responses', '304', 'content')).toBeUndefined();
    expect(headersOf('/inventory/{petId}', 'get', '200')).toContain('ETag');
    expect(headersOf('/inventory/{petId}', 'patch', '200')).toEqual(
      expect.arrayContaining(['ETag', 'Idempotent-Replayed']),
    );
    expect(headersOf('/inventory/{petId}', 'patch', '412')).toEqual(
      expect.arrayContaining(['ETag', 'Idempotent-Replayed']),
    );
    expect(headersOf('/inventory/{petId}', 'patch', '404')).toContain('Idempotent-Replayed');
    for (const status of ['409', '412', '422', '428']) {
      expect(at(DOCUMENT, 'paths', '/inventory/{petId}', 'patch', 'responses', status)).toBeDefined();
    }
    expect(headersOf('/inventory/{petId}/changes', 'get', '200')).toContain('Link');
  });

  it('documents the rate-limit headers and X-Request-Id on every response but 500 and 503', () => {
    for (const [path, method] of OPERATIONS) {
      const responses = at(DOCUMENT, 'paths', path, method, 'responses') as Node;
      for (const [status, response] of Object.entries(responses)) {
        const headers = Object.keys(at(response, 'headers') as Node);
        expect(headers, `${method} ${path} ${status}`).toContain('X-Request-Id');
        if (status === '500' || status === '503') continue;
        for (const name of [
          'X-RateLimit-Limit',
          'X-RateLimit-Remaining',
          'X-RateLimit-Reset',
          'RateLimit-Policy',
          'RateLimit',
        ]) {
          expect(headers, `${method} ${path} ${status}`).toContain(name);
        }
      }
    }
  });

  it('documents Retry-After on every 429, WWW-Authenticate on every 401 and the deprecation headers on getPetById', () => {
    for (const [path, method] of OPERATIONS) {
      const responses = at(DOCUMENT, 'paths', path, method, 'responses') as Node;
      expect(Object.keys(at(responses, '429', 'headers') as Node)).toContain('Retry-After');
      if (path !== '/openapi.json') {
        expect(Object.keys(at(responses, '401', 'headers') as Node)).toContain('WWW-Authenticate');
      }
    }
    for (const status of ['200', '400', '404', '410']) {
      const headers = Object.keys(
        at(DOCUMENT, 'paths', '/pets/{petId}', 'get', 'responses', status, 'headers') as Node,
      );
      expect(headers).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']));
    }
  });
});

describe('GET /v1/openapi.json', () => {
  let fx: HttpFixture;
  beforeEach(async () => {
    fx = await startHttpFixture();
  });
  afterEach(async () => {
    await fx.close();
  });

  it('serves the document without a key, as JSON', async () => {
    const response = await fx.call('/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(JSON.parse(response.text)).toEqual(DOCUMENT);
  });

  it('is limited per client address like any request without a key, and per key with one', async () => {
    const anonymous = await fx.call('/v1/openapi.json');
    expect(anonymous.headers.get('x-ratelimit-remaining')).toBe('59');
    const withKey = await fx.call('/v1/openapi.json', { headers: { authorization: await fx.bearer('pro') } });
    expect(withKey.headers.get('x-ratelimit-limit')).toBe('300');
    expect(withKey.headers.get('x-ratelimit-remaining')).toBe('299');
  });

  it('still serves the document when the key sent is not valid', async () => {
    const response = await fx.call('/v1/openapi.json', { headers: { authorization: 'Bearer psk_nope' } });
    expect(response.status).toBe(200);
  });
});

describe('the webhooks of the OpenAPI document', () => {
  it('describes each event type as an OpenAPI 3.1 webhook whose body is the StockEvent', () => {
    for (const type of [
      'inventory.updated',
      'inventory.low_stock',
      'inventory.out_of_stock',
      'inventory.back_in_stock',
    ]) {
      expect(at(DOCUMENT, 'webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema')).toEqual({
        $ref: '#/components/schemas/StockEvent',
      });
    }
    expect(at(DOCUMENT, 'components', 'schemas', 'StockEvent', 'properties', 'data', 'required')).toContain('changeId');
  });
});
