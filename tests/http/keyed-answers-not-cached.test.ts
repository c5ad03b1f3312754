import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aPet } from '../../src/testing/index.js';
import { type HttpFixture, jsonWith, startHttpFixture, UNKNOWN_KEY } from './support/http-fixture.js';

describe('an answer to a request with a key carries Cache-Control: no-store, so no cache keeps it past a sign-out', () => {
  let fx: HttpFixture;
  let bearer: string;
  beforeEach(async () => {
    fx = await startHttpFixture();
    bearer = await fx.bearer('enterprise', { perMinute: 2, perDay: 1_000 });
    await fx.addPets(aPet(1));
  });
  afterEach(async () => {
    await fx.close();
  });

  it.each([
    ['the stock list', '/v1/inventory', {}, 200],
    ["the key's own limits", '/v1/rate_limit', {}, 200],
    ['a pet that does not exist', '/v1/pets/999', {}, 404],
    ['a path no route takes', '/v1/no-such-thing', {}, 404],
    ['a refused body', '/v1/inventory/1', { method: 'PATCH', body: '{"quantity":-1}' }, 400],
  ])('on %s (%s)', async (_name, path, init, status) => {
    const response = await fx.call(path, { ...init, headers: jsonWith(bearer) });
    expect(response.status).toBe(status);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('on a 429 once the key has used its minute', async () => {
    await fx.call('/v1/inventory', { headers: { authorization: bearer } });
    await fx.call('/v1/inventory', { headers: { authorization: bearer } });
    const refused = await fx.call('/v1/inventory', { headers: { authorization: bearer } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('cache-control')).toBe('no-store');
  });

  it('on a 403 to a key without the scope', async () => {
    const { authorization } = await fx.issue({ scopes: ['inventory:read'] });
    const refused = await fx.call('/v1/inventory/1', {
      method: 'PATCH',
      headers: jsonWith(authorization),
      body: '{"quantity":1}',
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('cache-control')).toBe('no-store');
  });

  it('on a 401 to a key nobody issued', async () => {
    const refused = await fx.call('/v1/inventory', { headers: { authorization: `Bearer ${UNKNOWN_KEY}` } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('cache-control')).toBe('no-store');
  });
});
