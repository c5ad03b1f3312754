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
  ['/inventory/{petId}', 'patch', 'updateInventory'],
  ['/pets/{petId}', 'get', 'getPetById'],
  ['/store/orders', 'get', 'listOrders'],
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
      { url: TEST_SERVERS.production, description: 'production' },
      { url: TEST_SERVERS.staging, description: 'staging' },
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

  it('documents every operation under its operationId', () => {
    for (const [path, method, operationId] of OPERATIONS) {
      expect(at(DOCUMENT, 'paths', path, method, 'operationId')).toBe(operationId);
    }
    expect(Object.keys(at(DOCUMENT, 'paths') as Node)).toHaveLength(OPERATIONS.length);
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
