import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { quantity } from '../../src/domain/quantity.js';
import { aPet } from '../../src/testing/index.js';
import { type ApiResponse, type HttpFixture, jsonWith, startHttpFixture } from './support/http-fixture.js';

const bodyOf = (response: ApiResponse) => JSON.parse(response.text);

describe("a key's holds over HTTP: at most PETSTORE_MAX_HOLDS_PER_KEY, each for at most PETSTORE_MAX_HOLD_TTL_SECONDS", () => {
  let fx: HttpFixture;
  let key: string;
  beforeEach(async () => {
    fx = await startHttpFixture({ holdLimits: { perKey: 2, ttlMs: 600_000 } });
    key = await fx.bearer('enterprise', { perMinute: 100_000, perDay: 1_000_000 });
    await fx.addPets(aPet(1, { quantity: quantity(50) }), aPet(2, { quantity: quantity(50) }));
  });
  afterEach(async () => {
    await fx.close();
  });

  const reserve = (pet: number, body: string, as = key, headers: Record<string, string> = {}) =>
    fx.call(`/v1/inventory/${pet}/reservations`, { method: 'POST', headers: { ...jsonWith(as), ...headers }, body });
  const read = (path: string, as = key) => fx.call(path, { headers: { authorization: as } });

  it('answers 409 hold_limit_exceeded once the key holds its limit, holding nothing more', async () => {
    expect((await reserve(1, '{"quantity":1}')).status).toBe(201);
    expect((await reserve(2, '{"quantity":1}')).status).toBe(201);
    const before = await read('/v1/inventory/1');
    const refused = await reserve(1, '{"quantity":1}');
    expect(refused.status).toBe(409);
    expect(bodyOf(refused)).toEqual({
      code: 'hold_limit_exceeded',
      message: expect.stringContaining('holds 2 reservations, the most one key may hold'),
      status: 409,
    });
    const after = await read('/v1/inventory/1');
    expect(after.text).toBe(before.text);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
    // The limit is the key's: another key still reserves.
    const other = await fx.bearer('enterprise', { perMinute: 100_000, perDay: 1_000_000 });
    expect((await reserve(1, '{"quantity":1}', other)).status).toBe(201);
  });

  it('frees a place when one of its holds is released, by any key with inventory:write', async () => {
    const first = bodyOf(await reserve(1, '{"quantity":1}'));
    await reserve(1, '{"quantity":1}');
    expect((await reserve(1, '{"quantity":1}')).status).toBe(409);
    const other = await fx.bearer('enterprise', { perMinute: 100_000, perDay: 1_000_000 });
    expect(
      (await fx.call(`/v1/reservations/${first.id}`, { method: 'DELETE', headers: { authorization: other } })).status,
    ).toBe(200);
    expect((await reserve(1, '{"quantity":1}')).status).toBe(201);
  });

  it('answers 400 hold_ttl_exceeded for a hold longer than the limit, holding nothing', async () => {
    const refused = await reserve(1, '{"quantity":1,"ttlSeconds":601}');
    expect(refused.status).toBe(400);
    expect(bodyOf(refused)).toEqual({
      code: 'hold_ttl_exceeded',
      message: 'ttlSeconds 601 is longer than the 600 seconds a reservation may hold',
      status: 400,
    });
    expect(bodyOf(await read('/v1/inventory/1')).reserved).toBe(0);
    const longest = bodyOf(await reserve(1, '{"quantity":1,"ttlSeconds":600}'));
    expect(Date.parse(longest.expiresAt) - Date.parse(longest.createdAt)).toBe(600_000);
  });

  it('holds for the limit when asked for no length and the limit is shorter than the default 900 s', async () => {
    const made = bodyOf(await reserve(1, '{"quantity":1}'));
    expect(Date.parse(made.expiresAt) - Date.parse(made.createdAt)).toBe(600_000);
  });

  it('replays a refusal to a retry with the same Idempotency-Key', async () => {
    const headers = { 'idempotency-key': 'too-long-1' };
    const first = await reserve(1, '{"quantity":1,"ttlSeconds":700}', key, headers);
    const again = await reserve(1, '{"quantity":1,"ttlSeconds":700}', key, headers);
    expect([first.status, again.status]).toEqual([400, 400]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });

  it('states the limits and both codes in the OpenAPI document it serves', async () => {
    const document = bodyOf(await fx.call('/v1/openapi.json'));
    const operation = document.paths['/inventory/{petId}/reservations'].post;
    expect(operation.description).toContain('holds at most 2 reservations at once, each for at most 600 seconds');
    expect(operation.responses['400'].description).toContain('hold_ttl_exceeded');
    expect(operation.responses['409'].description).toContain('hold_limit_exceeded');
    expect(document.components.schemas.Error.properties.code.enum).toEqual(
      expect.arrayContaining(['hold_limit_exceeded', 'hold_ttl_exceeded']),
    );
  });
});

describe('the default limits', () => {
  it('let a key hold 1,000 reservations, for an hour at most', async () => {
    const fx = await startHttpFixture();
    try {
      const key = await fx.bearer('enterprise', { perMinute: 100_000, perDay: 1_000_000 });
      await fx.addPets(aPet(1, { quantity: quantity(2_000) }));
      const reserve = (body: string) =>
        fx.call('/v1/inventory/1/reservations', { method: 'POST', headers: jsonWith(key), body });
      expect((await reserve('{"quantity":1,"ttlSeconds":3601}')).status).toBe(400);
      for (let i = 0; i < 1_000; i += 1) expect((await reserve('{"quantity":1,"ttlSeconds":3600}')).status).toBe(201);
      expect(bodyOf(await reserve('{"quantity":1}')).code).toBe('hold_limit_exceeded');
    } finally {
      await fx.close();
    }
  });
});
