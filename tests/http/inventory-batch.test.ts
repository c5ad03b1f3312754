import { afterEach, describe, expect, it } from 'vitest';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { aPet, INT64_MAX } from '../../src/testing/index.js';
import {
  type ApiResponse,
  type FixtureOptions,
  type HttpFixture,
  jsonWith,
  startHttpFixture,
} from './support/http-fixture.js';

interface BatchError {
  code: string;
  message: string;
  status: number;
  errors?: { index: number; code: string; message: string }[];
}

const errorOf = (response: ApiResponse): BatchError => JSON.parse(response.text);

describe('POST /v1/inventory/batch (batchUpdateInventory)', () => {
  let fx: HttpFixture;
  let key: string;
  const start = async (options: FixtureOptions = {}, plan: 'free' | 'enterprise' = 'enterprise') => {
    fx = await startHttpFixture(options);
    key = await fx.bearer(plan, plan === 'enterprise' ? { perMinute: 100_000, perDay: 1_000_000 } : undefined);
    await fx.addPets(
      aPet(1, { quantity: quantity(5) }),
      aPet(2, { quantity: quantity(1) }),
      aPet(INT64_MAX, { quantity: quantity(0), status: 'sold' }),
    );
  };
  afterEach(async () => {
    await fx.close();
  });

  const batch = (body: string, headers: Record<string, string> = {}) =>
    fx.call('/v1/inventory/batch', { method: 'POST', headers: { ...jsonWith(key), ...headers }, body });
  const changesOf = async (id: bigint) => (await fx.changes.history(petId(id), { limit: 1_000 })) ?? [];
  const nothingWritten = async () => {
    for (const id of [1n, 2n, INT64_MAX]) expect(await changesOf(id)).toEqual([]);
  };

  it('applies every entry and answers the items in request order, each with its version', async () => {
    await start();
    const response = await batch(
      `{"changes":[{"petId":${INT64_MAX},"quantity":3},{"petId":2,"delta":-1,"reason":"sold"},{"petId":1,"delta":2}],` +
        '"reason":"weekly stocktake"}',
    );
    expect(response.status).toBe(200);
    expect(response.text).toBe(
      `{"items":[{"petId":${INT64_MAX},"quantity":3,"reserved":0,"available":3,"status":"available","version":2},` +
        '{"petId":2,"quantity":0,"reserved":0,"available":0,"status":"sold","version":2},{"petId":1,"quantity":7,"reserved":0,"available":7,"status":"available","version":2}]}',
    );
    expect(response.headers.get('etag')).toBeNull();
    expect((await changesOf(2n)).map((c) => [c.kind, c.reason])).toEqual([['adjust', 'sold']]);
    expect((await changesOf(1n)).map((c) => [c.kind, c.reason])).toEqual([['adjust', 'weekly stocktake']]);
    expect((await changesOf(INT64_MAX)).map((c) => [c.kind, c.reason])).toEqual([['set', 'weekly stocktake']]);
  });

  it('counts as one request against the rate limits', async () => {
    await start({}, 'free');
    const first = await batch('{"changes":[{"petId":1,"delta":1},{"petId":2,"delta":1}]}');
    const second = await batch('{"changes":[{"petId":1,"delta":1},{"petId":2,"delta":1}]}');
    expect(
      Number(first.headers.get('x-ratelimit-remaining')) - Number(second.headers.get('x-ratelimit-remaining')),
    ).toBe(1);
  });

  describe('a refused entry: nothing written, the first refused entry’s Error with every refused one in errors', () => {
    it('answers 404 when one pet is unknown', async () => {
      await start();
      const response = await batch('{"changes":[{"petId":1,"quantity":9},{"petId":404,"quantity":1}]}');
      expect(response.status).toBe(404);
      expect(errorOf(response)).toEqual({
        code: 'pet_not_found',
        message: 'no pet has id 404',
        status: 404,
        errors: [{ index: 1, code: 'pet_not_found', message: 'no pet has id 404' }],
      });
      await nothingWritten();
    });

    it('answers the status of the first refused entry, listing the others', async () => {
      await start();
      const response = await batch(
        '{"changes":[{"petId":1,"quantity":9},{"petId":2,"delta":-2},{"petId":404,"delta":1},' +
          `{"petId":${INT64_MAX},"quantity":1,"ifVersion":4}]}`,
      );
      expect(response.status).toBe(409);
      const error = errorOf(response);
      expect(error).toMatchObject({ code: 'insufficient_stock', status: 409 });
      expect(error.errors?.map((e) => [e.index, e.code])).toEqual([
        [1, 'insufficient_stock'],
        [2, 'pet_not_found'],
        [3, 'precondition_failed'],
      ]);
      await nothingWritten();
    });

    it('answers 412 for an entry not at its ifVersion, and applies one that is', async () => {
      await start();
      expect((await batch('{"changes":[{"petId":1,"quantity":1,"ifVersion":2}]}')).status).toBe(412);
      expect((await batch('{"changes":[{"petId":1,"quantity":1,"ifVersion":1}]}')).status).toBe(200);
    });
  });

  describe('a body the service refuses before any write: 400 invalid_body, naming the entry', () => {
    it.each([
      ['no changes', '{"changes":[]}', /changes must be an array of 1 to 100 entries/],
      ['changes that are not an array', '{"changes":{"petId":1,"quantity":1}}', /changes must be an array/],
      [
        '101 entries',
        `{"changes":[${Array.from({ length: 101 }, (_, i) => `{"petId":${i},"quantity":1}`).join(',')}]}`,
        /1 to 100 entries/,
      ],
      [
        'a pet named twice',
        '{"changes":[{"petId":1,"quantity":1},{"petId":2,"delta":1},{"petId":1,"delta":1}]}',
        /changes\[2\]: pet 1 is already changed by changes\[0\]/,
      ],
      [
        'both quantity and delta',
        '{"changes":[{"petId":1,"quantity":1,"delta":1}]}',
        /changes\[0\]: takes quantity or delta/,
      ],
      ['neither', '{"changes":[{"petId":1}]}', /changes\[0\]: takes quantity or delta/],
      ['no petId', '{"changes":[{"quantity":1}]}', /changes\[0\]: petId is required/],
      [
        'a petId in another spelling',
        '{"changes":[{"petId":1e0,"quantity":1}]}',
        /changes\[0\]: petId must be a signed 64-bit/,
      ],
      ['a petId past int64', '{"changes":[{"petId":9223372036854775808,"quantity":1}]}', /petId must be/],
      ['a delta of 0', '{"changes":[{"petId":1,"delta":0}]}', /changes\[0\]: delta must be a non-zero integer/],
      [
        'an ifVersion of 0',
        '{"changes":[{"petId":1,"delta":1,"ifVersion":0}]}',
        /ifVersion must be a positive integer/,
      ],
      ['an unknown field of an entry', '{"changes":[{"petId":1,"delta":1,"note":"x"}]}', /unknown field "note"/],
      ['an entry that is not an object', '{"changes":[5]}', /changes\[0\]: must be a JSON object/],
      ['an unknown field', '{"changes":[{"petId":1,"delta":1}],"dryRun":true}', /takes only changes and reason/],
      ['a bad reason', '{"changes":[{"petId":1,"delta":1}],"reason":""}', /reason must be/],
    ])('refuses %s', async (_, body, message) => {
      await start();
      const response = await batch(body);
      expect(response.status).toBe(400);
      expect(errorOf(response).code).toBe('invalid_body');
      expect(errorOf(response).message).toMatch(message);
      await nothingWritten();
    });

    it('answers 428 for an entry without ifVersion when the service requires conditions', async () => {
      await start({ requireIfMatch: true });
      const response = await batch('{"changes":[{"petId":1,"quantity":1,"ifVersion":1},{"petId":2,"delta":1}]}');
      expect(errorOf(response).code).toBe('precondition_required');
      await nothingWritten();
    });
  });

  describe('Idempotency-Key', () => {
    it('stores the whole outcome: a retry gets it again and writes nothing', async () => {
      await start();
      const body = '{"changes":[{"petId":1,"delta":-1},{"petId":2,"delta":-1}]}';
      const first = await batch(body, { 'idempotency-key': 'b-1' });
      const retry = await batch(body, { 'idempotency-key': 'b-1' });
      expect([retry.status, retry.text]).toEqual([first.status, first.text]);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(await changesOf(1n)).toHaveLength(1);
      expect(await changesOf(2n)).toHaveLength(1);
    });

    it('replays a refused batch too, and refuses the key on another body with 422', async () => {
      await start();
      const body = '{"changes":[{"petId":1,"delta":-1},{"petId":404,"delta":-1}]}';
      const first = await batch(body, { 'idempotency-key': 'b-2' });
      const retry = await batch(body, { 'idempotency-key': 'b-2' });
      expect([retry.status, retry.text]).toEqual([404, first.text]);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      const other = await batch('{"changes":[{"petId":1,"delta":-1}]}', { 'idempotency-key': 'b-2' });
      expect(errorOf(other).code).toBe('idempotency_key_reused');
      await nothingWritten();
    });
  });
});
