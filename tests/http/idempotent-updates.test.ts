import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { aPet } from '../../src/testing/index.js';
import { delegateInventory } from '../support/delegate-inventory.js';
import {
  type ApiResponse,
  type FixtureOptions,
  type Gate,
  gate,
  type HttpFixture,
  jsonWith,
  startHttpFixture,
} from './support/http-fixture.js';

const ENTERPRISE = { perMinute: 100_000, perDay: 1_000_000 };
const DAY_MS = 86_400_000;

const codeOf = (response: ApiResponse): string => (JSON.parse(response.text) as { code: string }).code;

/** What a client compares between two answers: status, body and ETag. */
const outcome = (response: ApiResponse) => ({
  status: response.status,
  text: response.text,
  etag: response.headers.get('etag'),
});

describe('PATCH with Idempotency-Key', () => {
  let fx: HttpFixture;
  let key: string;
  const start = async (options: FixtureOptions = {}) => {
    fx = await startHttpFixture(options);
    key = await fx.bearer('enterprise', ENTERPRISE);
    await fx.addPets(aPet(1, { quantity: quantity(5) }));
  };
  afterEach(async () => {
    await fx.close();
  });

  const patch = (path: string, body: string, headers: Record<string, string> = {}, authorization = key) =>
    fx.call(path, { method: 'PATCH', headers: { ...jsonWith(authorization), ...headers }, body });
  const changesOf = async (id: bigint) => (await fx.changes.history(petId(id), { limit: 1_000 })) ?? [];

  describe('a retry', () => {
    beforeEach(async () => {
      await start();
    });

    it('gets the first answer again (status, body, ETag) with Idempotent-Replayed: true, and writes nothing', async () => {
      const first = await patch('/v1/inventory/1', '{"quantity":8}', { 'idempotency-key': 'order-42' });
      expect(first.status).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      await patch('/v1/inventory/1', '{"quantity":3}');
      const retry = await patch('/v1/inventory/1', '{"quantity":8}', { 'idempotency-key': 'order-42' });
      expect(outcome(retry)).toEqual(outcome(first));
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect((await changesOf(1n)).map((change) => change.after.quantity)).toEqual([3, 8]);
    });

    it('gets a stored 412 again, with the ETag it carried, even after the entry moved on', async () => {
      const headers = { 'idempotency-key': 'stale-1', 'if-match': '"9"' };
      const first = await patch('/v1/inventory/1', '{"quantity":8}', headers);
      expect(first.status).toBe(412);
      await patch('/v1/inventory/1', '{"quantity":3}');
      const retry = await patch('/v1/inventory/1', '{"quantity":8}', headers);
      expect(outcome(retry)).toEqual({ ...outcome(first), etag: '"1"' });
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
    });

    it('gets a stored 404 again, even after the pet was added', async () => {
      const first = await patch('/v1/inventory/2', '{"quantity":8}', { 'idempotency-key': 'ghost' });
      expect(first.status).toBe(404);
      await fx.addPets(aPet(2));
      const retry = await patch('/v1/inventory/2', '{"quantity":8}', { 'idempotency-key': 'ghost' });
      expect(outcome(retry)).toEqual(outcome(first));
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(await changesOf(2n)).toEqual([]);
    });

    it('still passes authentication: a revoked key is refused with 401', async () => {
      const other = await fx.bearer('pro');
      expect((await patch('/v1/inventory/1', '{"quantity":8}', { 'idempotency-key': 'k' }, other)).status).toBe(200);
      expect((await fx.core.revokeApiKey.execute({ idOrKey: other.slice('Bearer '.length) })).ok).toBe(true);
      const retry = await patch('/v1/inventory/1', '{"quantity":8}', { 'idempotency-key': 'k' }, other);
      expect(retry.status).toBe(401);
    });

    it('still passes the rate limiter, and counts against it', async () => {
      const small = await fx.bearer('enterprise', { perMinute: 2, perDay: 100 });
      const send = () => patch('/v1/inventory/1', '{"quantity":8}', { 'idempotency-key': 'k' }, small);
      const answers = [await send(), await send(), await send()];
      expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
      expect(answers.map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['1', '0', '0']);
    });
  });

  describe('a key is scoped and named', () => {
    beforeEach(async () => {
      await start();
    });

    it('refuses the same key on another body with 422 idempotency_key_reused, down to the bytes', async () => {
      expect((await patch('/v1/inventory/1', '{"quantity":8}', { 'idempotency-key': 'k1' })).status).toBe(200);
      const spaced = await patch('/v1/inventory/1', '{"quantity": 8}', { 'idempotency-key': 'k1' });
      expect(spaced.status).toBe(422);
      expect(codeOf(spaced)).toBe('idempotency_key_reused');
      expect(spaced.headers.get('idempotent-replayed')).toBeNull();
      expect(await changesOf(1n)).toHaveLength(1);
    });

    it('refuses the same key on another path with 422', async () => {
      await fx.addPets(aPet(2));
      expect((await patch('/v1/inventory/1', '{"quantity":8}', { 'idempotency-key': 'k2' })).status).toBe(200);
      expect((await patch('/v1/inventory/2', '{"quantity":8}', { 'idempotency-key': 'k2' })).status).toBe(422);
      expect(await changesOf(2n)).toEqual([]);
    });

    it('takes one pet under two spellings of its path as one request', async () => {
      const first = await patch('/v1/inventory/1', '{"quantity":8}', { 'idempotency-key': 'k3' });
      const retry = await patch('/v1/inventory/%31', '{"quantity":8}', { 'idempotency-key': 'k3' });
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.text).toBe(first.text);
    });

    it('keeps the keys of two API keys apart: the same Idempotency-Key from another API key is a new request', async () => {
      const other = await fx.bearer('pro');
      await patch('/v1/inventory/1', '{"quantity":8}', { 'idempotency-key': 'shared' });
      const second = await patch('/v1/inventory/1', '{"quantity":8}', { 'idempotency-key': 'shared' }, other);
      expect(second.status).toBe(200);
      expect(second.headers.get('idempotent-replayed')).toBeNull();
      expect(second.headers.get('etag')).toBe('"3"');
    });

    it('forgets a key after 24 hours: it then names a new request', async () => {
      await patch('/v1/inventory/1', '{"quantity":8}', { 'idempotency-key': 'old' });
      fx.clock.advance(DAY_MS);
      const later = await patch('/v1/inventory/1', '{"quantity":9}', { 'idempotency-key': 'old' });
      expect(later.status).toBe(200);
      expect(later.headers.get('idempotent-replayed')).toBeNull();
      expect(await changesOf(1n)).toHaveLength(2);
    });
  });

  describe('an Idempotency-Key that is not 1 to 255 visible ASCII characters', () => {
    beforeEach(async () => {
      await start();
    });

    it.each([
      ['empty', ''],
      ['256 characters', 'k'.repeat(256)],
      ['with a space', 'two words'],
      ['with a tab', 'a\tb'],
      ['with a Latin-1 letter', 'caf\u00e9'],
    ])('is refused when %s with 400 invalid_idempotency_key, and not stored', async (_, field) => {
      const response = await patch('/v1/inventory/1', '{"quantity":8}', { 'idempotency-key': field });
      expect(response.status).toBe(400);
      expect(codeOf(response)).toBe('invalid_idempotency_key');
      expect(await changesOf(1n)).toEqual([]);
    });

    it('is taken at 255 characters, and at 1', async () => {
      expect((await patch('/v1/inventory/1', '{"quantity":8}', { 'idempotency-key': '~'.repeat(255) })).status).toBe(
        200,
      );
      expect((await patch('/v1/inventory/1', '{"quantity":8}', { 'idempotency-key': '!' })).status).toBe(200);
    });

    it('is refused when sent twice', async () => {
      const headers = new Headers(jsonWith(key));
      headers.append('idempotency-key', 'a');
      headers.append('idempotency-key', 'b');
      const response = await fx.call('/v1/inventory/1', { method: 'PATCH', headers, body: '{"quantity":8}' });
      expect(codeOf(response)).toBe('invalid_idempotency_key');
    });
  });

  it('does not store a 400 of the body: the corrected request with the same key is a first request', async () => {
    await start();
    expect((await patch('/v1/inventory/1', '{"quantity":-1}', { 'idempotency-key': 'fix-me' })).status).toBe(400);
    const fixed = await patch('/v1/inventory/1', '{"quantity":1}', { 'idempotency-key': 'fix-me' });
    expect(fixed.status).toBe(200);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
  });

  it('does not store a 500: the retry writes', async () => {
    let failures = 1;
    await start({
      inventory: (memory) =>
        delegateInventory(memory, {
          write: async (command) => {
            if (failures-- > 0) throw new Error('the disk is full');
            return memory.write(command);
          },
        }),
    });
    expect((await patch('/v1/inventory/1', '{"quantity":8}', { 'idempotency-key': 'flaky' })).status).toBe(500);
    const retry = await patch('/v1/inventory/1', '{"quantity":8}', { 'idempotency-key': 'flaky' });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await changesOf(1n)).toHaveLength(1);
  });

  it('answers 409 idempotency_key_in_use while the first request with the key is still being written', async () => {
    let hold: Gate | undefined = gate();
    const entered = gate();
    await start({
      inventory: (memory) =>
        delegateInventory(memory, {
          write: async (command) => {
            const held = hold;
            hold = undefined;
            if (held !== undefined) {
              entered.open();
              await held.passed;
            }
            return memory.write(command);
          },
        }),
    });
    const release = hold as Gate;
    const first = patch('/v1/inventory/1', '{"quantity":8}', { 'idempotency-key': 'slow' });
    await entered.passed;
    const racing = await patch('/v1/inventory/1', '{"quantity":8}', { 'idempotency-key': 'slow' });
    expect(racing.status).toBe(409);
    expect(codeOf(racing)).toBe('idempotency_key_in_use');
    release.open();
    expect((await first).status).toBe(200);
    const after = await patch('/v1/inventory/1', '{"quantity":8}', { 'idempotency-key': 'slow' });
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect(await changesOf(1n)).toHaveLength(1);
  });
});
