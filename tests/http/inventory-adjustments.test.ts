import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { aPet } from '../../src/testing/index.js';
import {
  type ApiResponse,
  type FixtureOptions,
  type HttpFixture,
  jsonWith,
  startHttpFixture,
} from './support/http-fixture.js';

const errorOf = (response: ApiResponse): { code: string; message: string; status: number } => JSON.parse(response.text);

describe('POST /v1/inventory/{petId}/adjustments (adjustInventory)', () => {
  let fx: HttpFixture;
  let key: string;
  const start = async (options: FixtureOptions = {}) => {
    fx = await startHttpFixture(options);
    key = await fx.bearer('enterprise', { perMinute: 100_000, perDay: 1_000_000 });
    await fx.addPets(
      aPet(1, { quantity: quantity(5) }),
      aPet(2, { quantity: quantity(0), status: 'sold' }),
      aPet(3, { quantity: quantity(2_147_483_640) }),
    );
  };
  afterEach(async () => {
    await fx.close();
  });

  const adjust = (id: number | string, body: string, headers: Record<string, string> = {}) =>
    fx.call(`/v1/inventory/${id}/adjustments`, { method: 'POST', headers: { ...jsonWith(key), ...headers }, body });
  const entryOf = (id: bigint) => fx.core.getInventoryItem.execute({ petId: petId(id) });
  const changesOf = async (id: bigint) => (await fx.changes.history(petId(id), { limit: 1_000 })) ?? [];

  describe('an adjustment that fits', () => {
    beforeEach(async () => {
      await start();
    });

    it('moves the stock by the delta, answers the entry with its new ETag, and records an adjust with its reason', async () => {
      const response = await adjust(1, '{"delta":-2,"reason":"sold at the counter"}');
      expect(response.status).toBe(200);
      expect(response.text).toBe('{"petId":1,"quantity":3,"reserved":0,"available":3,"status":"available"}');
      expect(response.headers.get('etag')).toBe('"2"');
      const [change] = await changesOf(1n);
      expect(change).toMatchObject({ kind: 'adjust', reason: 'sold at the counter' });
      expect([change?.before.quantity, change?.after.quantity]).toEqual([5, 3]);
    });

    it('moves the status by the rule on the result: to 0 is sold, stock for a sold pet makes it available', async () => {
      expect((await adjust(1, '{"delta":-5}')).text).toBe(
        '{"petId":1,"quantity":0,"reserved":0,"available":0,"status":"sold"}',
      );
      expect((await adjust(2, '{"delta":4}')).text).toBe(
        '{"petId":2,"quantity":4,"reserved":0,"available":4,"status":"available"}',
      );
    });

    it('takes the largest delta either way when the result stays in range', async () => {
      await fx.addPets(aPet(4, { quantity: quantity(2_147_483_647) }));
      expect((await adjust(4, '{"delta":-2147483647}')).status).toBe(200);
      expect((await adjust(4, '{"delta":2147483647}')).status).toBe(200);
    });

    it('loses no adjustment among 20 at once: exactly 5 of -1 on a stock of 5 are taken, the rest 409', async () => {
      const answers = await Promise.all(Array.from({ length: 20 }, () => adjust(1, '{"delta":-1}')));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
      expect(answers.filter((a) => a.status === 409).map((a) => errorOf(a).code)).toEqual(
        Array(15).fill('insufficient_stock'),
      );
      expect(await entryOf(1n)).toMatchObject({ ok: true, value: { item: { quantity: 0, status: 'sold' } } });
      expect(await changesOf(1n)).toHaveLength(5);
    });
  });

  describe('an adjustment the stock cannot take: 409, nothing written', () => {
    beforeEach(async () => {
      await start();
    });

    it('answers insufficient_stock below 0', async () => {
      const response = await adjust(1, '{"delta":-6}');
      expect(response.status).toBe(409);
      expect(errorOf(response)).toEqual({
        code: 'insufficient_stock',
        message: 'pet 1 has 5 in stock: a delta of -6 would take it below 0',
        status: 409,
      });
      expect(await changesOf(1n)).toEqual([]);
      expect(await entryOf(1n)).toMatchObject({ ok: true, value: { version: 1 } });
    });

    it('answers quantity_limit_exceeded above 2147483647', async () => {
      const response = await adjust(3, '{"delta":8}');
      expect(response.status).toBe(409);
      expect(errorOf(response).code).toBe('quantity_limit_exceeded');
      expect(await changesOf(3n)).toEqual([]);
    });
  });

  describe('a request the service refuses before any write', () => {
    beforeEach(async () => {
      await start();
    });

    it.each([
      ['a missing delta', '{}', /delta is required/],
      ['a delta of 0', '{"delta":0}', /delta must be a non-zero integer/],
      ['a fraction', '{"delta":1.5}', /delta must be/],
      ['a string', '{"delta":"-1"}', /delta must be/],
      ['a delta past the maximum', '{"delta":-2147483648}', /from -2147483647 to 2147483647/],
      ['a quantity beside it', '{"delta":1,"quantity":3}', /unknown field "quantity"; it takes only delta and reason/],
      ['an empty reason', '{"delta":1,"reason":""}', /reason must be/],
    ])('answers 400 invalid_body for %s', async (_, body, message) => {
      const response = await adjust(1, body);
      expect(response.status).toBe(400);
      expect(errorOf(response).code).toBe('invalid_body');
      expect(errorOf(response).message).toMatch(message);
      expect(await changesOf(1n)).toEqual([]);
    });

    it('answers 400 invalid_pet_id, and 404 pet_not_found for an unknown pet', async () => {
      expect(errorOf(await adjust('abc', '{"delta":1}')).code).toBe('invalid_pet_id');
      const missing = await adjust(404, '{"delta":1}');
      expect(missing.status).toBe(404);
      expect(errorOf(missing).code).toBe('pet_not_found');
    });
  });

  describe('If-Match and Idempotency-Key, as on PATCH', () => {
    it('writes only at a version If-Match names; else 412 with the current ETag', async () => {
      await start();
      expect((await adjust(1, '{"delta":1}', { 'if-match': '"1"' })).status).toBe(200);
      const stale = await adjust(1, '{"delta":1}', { 'if-match': '"1"' });
      expect(stale.status).toBe(412);
      expect(stale.headers.get('etag')).toBe('"2"');
      expect(await changesOf(1n)).toHaveLength(1);
    });

    it('answers 428 without If-Match when the service requires it', async () => {
      await start({ requireIfMatch: true });
      expect(errorOf(await adjust(1, '{"delta":1}')).code).toBe('precondition_required');
      expect((await adjust(1, '{"delta":1}', { 'if-match': '*' })).status).toBe(200);
    });

    it('replays a retry, a 200 or a 409 alike, and writes once', async () => {
      await start();
      const first = await adjust(1, '{"delta":-3}', { 'idempotency-key': 'sale-1' });
      const retry = await adjust(1, '{"delta":-3}', { 'idempotency-key': 'sale-1' });
      expect([retry.status, retry.text, retry.headers.get('etag')]).toEqual([
        first.status,
        first.text,
        first.headers.get('etag'),
      ]);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(await changesOf(1n)).toHaveLength(1);
      const refused = await adjust(1, '{"delta":-3}', { 'idempotency-key': 'sale-2' });
      await adjust(1, '{"delta":10}');
      const replayedRefusal = await adjust(1, '{"delta":-3}', { 'idempotency-key': 'sale-2' });
      expect(refused.status).toBe(409);
      expect([replayedRefusal.status, replayedRefusal.text]).toEqual([409, refused.text]);
      expect(replayedRefusal.headers.get('idempotent-replayed')).toBe('true');
    });

    it('refuses the key on another request with 422, a PATCH of the same pet included', async () => {
      await start();
      await adjust(1, '{"delta":1}', { 'idempotency-key': 'k' });
      const patch = await fx.call('/v1/inventory/1', {
        method: 'PATCH',
        headers: { ...jsonWith(key), 'idempotency-key': 'k' },
        body: '{"quantity":1}',
      });
      expect(errorOf(patch).code).toBe('idempotency_key_reused');
      const other = await adjust(1, '{"delta":2}', { 'idempotency-key': 'k' });
      expect(errorOf(other).code).toBe('idempotency_key_reused');
    });
  });
});
