import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutcomeUnknownError } from '../../src/adapters/postgres/postgres-database.js';
import type { InventoryRepository } from '../../src/application/ports/inventory-repository.js';
import type { RateLimiter } from '../../src/application/ports/rate-limiter.js';
import { aPet } from '../../src/testing/index.js';
import { delegateInventory } from '../support/delegate-inventory.js';
import { type ApiResponse, type HttpFixture, jsonWith, startHttpFixture } from './support/http-fixture.js';

const errorOf = (response: ApiResponse): { code: string; message: string; status: number } => JSON.parse(response.text);

const SECRET = 'disk /var/lib/petstore is on fire';

/** A store whose update throws, as a failing disk would. */
const failingUpdates = (memory: InventoryRepository): InventoryRepository =>
  delegateInventory(memory, {
    write: async () => {
      throw new Error(SECRET);
    },
  });

describe('routing', () => {
  let fx: HttpFixture;
  let key: string;
  beforeEach(async () => {
    fx = await startHttpFixture();
    key = await fx.bearer('pro');
    await fx.addPets(aPet(1));
  });
  afterEach(async () => {
    await fx.close();
  });

  it.each([
    ['a path outside /v1', '/inventory'],
    ['the root', '/'],
    ['an unknown path under /v1', '/v1/nothing'],
    ['/v1 itself', '/v1'],
    ['a path in another case', '/V1/inventory'],
    ['a path with a trailing slash', '/v1/inventory/'],
    ['a path one segment too deep', '/v1/inventory/1/history'],
  ])('answers 404 not_found as JSON for %s', async (_, path) => {
    const response = await fx.call(path, { headers: { authorization: key } });
    expect(response.status).toBe(404);
    expect(errorOf(response)).toMatchObject({ code: 'not_found', status: 404 });
  });

  it.each([
    ['DELETE', '/v1/inventory', 'GET, HEAD'],
    ['POST', '/v1/inventory', 'GET, HEAD'],
    ['DELETE', '/v1/inventory/1', 'GET, HEAD, PATCH'],
    ['PUT', '/v1/inventory/1', 'GET, HEAD, PATCH'],
    ['PATCH', '/v1/inventory/1/changes', 'GET, HEAD'],
    ['PATCH', '/v1/pets/1', 'GET, HEAD'],
    ['OPTIONS', '/v1/store/orders', 'GET, HEAD'],
    ['POST', '/livez', 'GET, HEAD'],
    ['DELETE', '/v1/openapi.json', 'GET, HEAD'],
  ])('answers %s %s with 405 method_not_allowed and Allow: %s', async (method, path, allow) => {
    const response = await fx.call(path, { method, headers: jsonWith(key) });
    expect(response.status).toBe(405);
    expect(errorOf(response).code).toBe('method_not_allowed');
    expect(response.headers.get('allow')).toBe(allow);
  });

  it('answers a method it does not route with 405 on a known path', async () => {
    const response = await fx.call('/v1/inventory', { method: 'PROPFIND', headers: { authorization: key } });
    expect(response.status).toBe(405);
  });
});

describe('a failure of the service: 500 internal_error', () => {
  let fx: HttpFixture;
  let key: string;
  beforeEach(async () => {
    fx = await startHttpFixture({ inventory: failingUpdates });
    key = await fx.bearer('pro');
    await fx.addPets(aPet(1));
  });
  afterEach(async () => {
    await fx.close();
  });

  it('shows no detail and no stack, only the request id to quote', async () => {
    const response = await fx.call('/v1/inventory/1', {
      method: 'PATCH',
      headers: { ...jsonWith(key), 'x-request-id': 'trace-500' },
      body: '{"quantity":1}',
    });
    expect(response.status).toBe(500);
    expect(errorOf(response)).toEqual({
      code: 'internal_error',
      message: 'the service failed to answer; quote request id trace-500',
      status: 500,
    });
    expect(response.text).not.toContain(SECRET);
    expect(response.text).not.toMatch(/\bat \S+ \(|\.ts:\d+/);
  });

  it('logs the detail with the stack and the request id, server side', async () => {
    await fx.call('/v1/inventory/1', {
      method: 'PATCH',
      headers: { ...jsonWith(key), 'x-request-id': 'trace-log' },
      body: '{"quantity":1}',
    });
    const failure = fx.logLines.find((line) => line.msg === 'request failed');
    expect(failure).toMatchObject({ requestId: 'trace-log', level: 50, err: { message: SECRET } });
    expect(String((failure?.err as { stack?: unknown } | undefined)?.stack)).toContain('errors-and-routing.test.ts');
  });
});

describe('a write whose outcome the store cannot tell', () => {
  it('answers 500 outcome_unknown, without Retry-After, never 503 unavailable', async () => {
    const unknown = (memory: InventoryRepository): InventoryRepository =>
      delegateInventory(memory, {
        write: async () => {
          throw new OutcomeUnknownError({ cause: new Error('Connection terminated unexpectedly') });
        },
      });
    const fx = await startHttpFixture({ inventory: unknown });
    try {
      await fx.addPets(aPet(1));
      const response = await fx.call('/v1/inventory/1', {
        method: 'PATCH',
        headers: jsonWith(await fx.bearer('pro')),
        body: '{"quantity":1}',
      });
      expect(response.status).toBe(500);
      expect(response.headers.get('retry-after')).toBeNull();
      expect(errorOf(response)).toMatchObject({ code: 'outcome_unknown', status: 500 });
      expect(errorOf(response).message).toContain('same Idempotency-Key');
    } finally {
      await fx.close();
    }
  });
});

describe('a limiter that cannot decide', () => {
  /** The answer to a keyed list request when the limiter's admit is `admit`. */
  async function answerWith(admit: RateLimiter['admit']): Promise<ApiResponse> {
    const fx = await startHttpFixture({ limiter: (memory) => ({ admit, peek: (s, p) => memory.peek(s, p) }) });
    try {
      return await fx.call('/v1/inventory', { headers: { authorization: await fx.bearer('free') } });
    } finally {
      await fx.close();
    }
  }

  it('answers 503 unavailable, without rate-limit headers, when the limiter answers unavailable (fail-closed)', async () => {
    const response = await answerWith(async () => ({ outcome: 'unavailable', reason: 'the shared store is down' }));
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(errorOf(response)).toEqual({
      code: 'unavailable',
      message: 'a service this request needs is unavailable; retry shortly',
      status: 503,
    });
    expect(response.headers.get('x-ratelimit-limit')).toBeNull();
    expect(response.text).not.toContain('the shared store is down');
  });

  it('answers 500 internal_error when the limiter fails in any other way', async () => {
    const response = await answerWith(async () => {
      throw new Error('limiter bug');
    });
    expect(response.status).toBe(500);
    expect(response.text).not.toContain('limiter bug');
  });
});

describe('the request id', () => {
  let fx: HttpFixture;
  beforeEach(async () => {
    fx = await startHttpFixture();
  });
  afterEach(async () => {
    await fx.close();
  });

  it.each(['abc-123', 'A.b_C-9', 'x.'.repeat(64), '0', `${'a'.repeat(39)}-${'b'.repeat(39)}`])(
    'echoes a sane one: %s',
    async (id) => {
      const response = await fx.call('/v1/inventory', { headers: { 'x-request-id': id } });
      expect(response.headers.get('x-request-id')).toBe(id);
    },
  );

  it.each([
    ['one too long', 'x'.repeat(129)],
    ['one with a space', 'a b'],
    ['one with a semicolon', 'a;b'],
    ['one with a quote', 'a"b'],
    ['an empty one', ''],
    ['an API key', `psk_${'A1b2C3d4E5'.repeat(4)}`],
    ['an API key in other casing', `PSK_${'A1b2C3d4E5'.repeat(4)}`],
    ['a key without its prefix', 'A1b2C3d4E5'.repeat(4)],
    ['one holding a key without its prefix', `trace-${'A1b2C3d4E5'.repeat(4)}-1`],
  ])('replaces %s with a new UUID', async (_, id) => {
    const response = await fx.call('/livez', { headers: { 'x-request-id': id } });
    expect(response.headers.get('x-request-id')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('gives every response its own when the client sends none', async () => {
    const ids = new Set<string | null>();
    for (const path of ['/livez', '/readyz', '/v1/inventory', '/nowhere']) {
      ids.add((await fx.call(path)).headers.get('x-request-id'));
    }
    expect(ids.size).toBe(4);
  });
});

describe('the request log', () => {
  it('writes one line per request: id, method, route template, status, ms and key id', async () => {
    const fx = await startHttpFixture();
    try {
      const key = await fx.bearer('free');
      await fx.addPets(aPet(7));
      await fx.call('/v1/inventory/7', {
        method: 'PATCH',
        headers: { ...jsonWith(key), 'x-request-id': 'r-1' },
        body: '{"quantity":2}',
      });
      await fx.call('/v1/nowhere', { headers: { 'x-request-id': 'r-2' } });
      const [keyRecord] = await fx.core.listApiKeys.execute();
      const lines = fx.logLines.filter((line) => line.msg === 'request');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatchObject({
        requestId: 'r-1',
        method: 'PATCH',
        route: '/v1/inventory/:petId',
        status: 200,
        keyId: keyRecord?.id,
      });
      expect(typeof lines[0]?.ms).toBe('number');
      expect(lines[1]).toMatchObject({
        requestId: 'r-2',
        method: 'GET',
        route: '/v1/nowhere',
        status: 401,
        keyId: null,
      });
    } finally {
      await fx.close();
    }
  });
});

describe('the probes outside /v1', () => {
  let fx: HttpFixture;
  beforeEach(async () => {
    fx = await startHttpFixture();
  });
  afterEach(async () => {
    await fx.close();
  });

  it('answers /livez 200 while the process runs', async () => {
    fx.ready = false;
    const response = await fx.call('/livez');
    expect(response.status).toBe(200);
    expect(response.text).toBe('{"status":"live"}');
  });

  it('answers /readyz 200 when ready and 503 unavailable while starting or draining', async () => {
    expect((await fx.call('/readyz')).status).toBe(200);
    fx.ready = false;
    const draining = await fx.call('/readyz');
    expect(draining.status).toBe(503);
    expect(draining.headers.get('retry-after')).toBe('1');
    expect(errorOf(draining).code).toBe('unavailable');
  });

  it('spends no quota: a hundred probes leave the address its 60', async () => {
    for (let i = 0; i < 100; i += 1) await fx.call('/livez');
    const response = await fx.call('/v1/inventory');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('59');
  });
});
