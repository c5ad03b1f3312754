import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aPet } from '../../src/testing/index.js';
import { type HttpFixture, jsonWith, startHttpFixture, UNKNOWN_KEY } from './support/http-fixture.js';

let fx: HttpFixture;
beforeEach(async () => {
  fx = await startHttpFixture();
  await fx.addPets(aPet(1));
});
afterEach(async () => {
  await fx.close();
});

const list = (authorization: string) => fx.call('/v1/inventory', { headers: { authorization } });
const patch = (authorization: string) =>
  fx.call('/v1/inventory/1', { method: 'PATCH', headers: jsonWith(authorization), body: '{"quantity":3}' });
const codeOf = (text: string): unknown => (JSON.parse(text) as { code: unknown }).code;

describe('scopes: inventory:read for reads, inventory:write for writes', () => {
  it('lets a read key read, and refuses its PATCH with 403 and the RFC 6750 challenge, writing nothing', async () => {
    const { authorization } = await fx.issue({ scopes: ['inventory:read'] });
    expect((await list(authorization)).status).toBe(200);
    const refused = await patch(authorization);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text)).toMatchObject({ code: 'insufficient_scope', status: 403 });
    expect(refused.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="inventory:write"');
    // Counted like any request: the refusal carries the limit headers, one request after the read.
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('58');
    expect(JSON.parse((await fx.call('/v1/inventory/1', { headers: { authorization } })).text)).toMatchObject({
      quantity: 5,
    });
  });

  it('refuses every read of a write-only key, and lets it write', async () => {
    const { authorization } = await fx.issue({ scopes: ['inventory:write'] });
    for (const path of [
      '/v1/inventory',
      '/v1/inventory/1',
      '/v1/inventory/1/changes',
      '/v1/store/orders',
      '/v1/rate_limit',
    ]) {
      const refused = await fx.call(path, { headers: { authorization } });
      expect(refused.status, path).toBe(403);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="inventory:read"');
    }
    expect((await patch(authorization)).status).toBe(200);
  });

  it('answers a method or path no operation takes 405 or 404, whatever the key may do', async () => {
    const { authorization } = await fx.issue({ scopes: ['inventory:read'] });
    const unknown = await fx.call('/v1/nowhere', { method: 'POST', headers: jsonWith(authorization), body: '{}' });
    expect(unknown.status).toBe(404);
    const wrongMethod = await fx.call('/v1/inventory', { method: 'DELETE', headers: { authorization } });
    expect(wrongMethod.status).toBe(405);
  });

  it('still serves the open OpenAPI document to a key of any scope', async () => {
    const { authorization } = await fx.issue({ scopes: ['inventory:write'] });
    expect((await fx.call('/v1/openapi.json', { headers: { authorization } })).status).toBe(200);
  });
});

describe('expiry', () => {
  it('answers 401 key_expired once the key’s expiry is reached, and unauthorized for an unknown key', async () => {
    const { authorization } = await fx.issue({ expiresInMs: 60_000 });
    fx.clock.advance(59_999);
    expect((await list(authorization)).status).toBe(200);
    fx.clock.advance(1);
    const expired = await list(authorization);
    expect(expired.status).toBe(401);
    expect(JSON.parse(expired.text)).toMatchObject({ code: 'key_expired', status: 401 });
    expect(expired.headers.get('www-authenticate')).toBe(
      'Bearer realm="petstore", error="invalid_token", error_description="the API key has expired"',
    );
    const unknown = await list(`Bearer ${UNKNOWN_KEY}`);
    expect(codeOf(unknown.text)).toBe('unauthorized');
  });

  it('answers unauthorized, not key_expired, for a key both expired and revoked', async () => {
    const { authorization, id } = await fx.issue({ expiresInMs: 1_000 });
    await fx.core.revokeApiKey.execute({ idOrKey: id });
    fx.clock.advance(1_000);
    expect(codeOf((await list(authorization)).text)).toBe('unauthorized');
  });
});

describe('rolling a key with a grace period', () => {
  it('lets both keys work during the grace, counts both in one window, then refuses the old one', async () => {
    const old = await fx.issue();
    expect((await list(old.authorization)).headers.get('x-ratelimit-remaining')).toBe('59');
    const rolled = await fx.core.rollApiKey.execute({ id: old.id, graceMs: 3_000, actor: 'ops' });
    if (!rolled.ok) throw new Error(rolled.error.message);
    const next = `Bearer ${rolled.value.key}`;
    // One subject for both: the limits are neither reset nor doubled by the roll.
    expect((await list(next)).headers.get('x-ratelimit-remaining')).toBe('58');
    expect((await list(old.authorization)).headers.get('x-ratelimit-remaining')).toBe('57');
    expect((await patch(next)).headers.get('x-ratelimit-remaining')).toBe('56');
    fx.clock.advance(2_999);
    expect((await list(old.authorization)).status).toBe(200);
    fx.clock.advance(1);
    const refused = await list(old.authorization);
    expect(refused.status).toBe(401);
    expect(codeOf(refused.text)).toBe('key_expired');
    const still = await list(next);
    expect(still.status).toBe(200);
    expect(still.headers.get('x-ratelimit-remaining')).toBe('54');
  });

  it('refuses the old key at once with a grace of 0', async () => {
    const old = await fx.issue();
    const rolled = await fx.core.rollApiKey.execute({ id: old.id, graceMs: 0, actor: 'ops' });
    expect(rolled.ok).toBe(true);
    expect(codeOf((await list(old.authorization)).text)).toBe('key_expired');
  });
});

describe('last use', () => {
  it('moves lastUsedAt within a minute of a use, written off the request path', async () => {
    const { authorization, id } = await fx.issue();
    const lastUsed = async () => {
      await fx.keyUses.flush();
      const found = await fx.core.getApiKey.execute({ id });
      if (!found.ok) throw new Error(found.error.message);
      return found.value.lastUsedAtMs;
    };
    expect(await lastUsed()).toBeNull();
    const first = fx.clock.nowMs();
    await list(authorization);
    expect(await lastUsed()).toBe(first);
    fx.clock.advance(30_000);
    await list(authorization);
    expect(await lastUsed()).toBe(first);
    fx.clock.advance(30_000);
    await list(authorization);
    expect(await lastUsed()).toBe(first + 60_000);
  });
});
