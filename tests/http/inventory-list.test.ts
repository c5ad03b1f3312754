import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { InventoryQuery, InventoryRepository } from '../../src/application/ports/inventory-repository.js';
import type { InventoryItem } from '../../src/domain/inventory-item.js';
import { aPet, INT64_MAX, INT64_MIN } from '../../src/testing/index.js';
import { delegateInventory } from '../support/delegate-inventory.js';
import { gate, type HttpFixture, startHttpFixture } from './support/http-fixture.js';
import { expectMatchesDocument } from './support/openapi-contract.js';

const ENTERPRISE = { perMinute: 100_000, perDay: 1_000_000 };

describe('GET /v1/inventory (listInventory)', () => {
  let fx: HttpFixture;
  let key: string;
  beforeEach(async () => {
    fx = await startHttpFixture();
    key = await fx.bearer('enterprise', ENTERPRISE);
  });
  afterEach(async () => {
    await fx.close();
  });

  const list = (query = '') => fx.call(`/v1/inventory${query}`, { headers: { authorization: key } });

  it('answers an empty array for an empty store', async () => {
    const response = await list();
    expect(response.status).toBe(200);
    expect(response.text).toBe('[]');
  });

  it('answers every pet, ordered by petId, with ids exact over the whole int64 range', async () => {
    await fx.addPets(aPet(INT64_MAX), aPet(2n ** 53n + 1n, { status: 'pending' }), aPet(0), aPet(INT64_MIN));
    const response = await list();
    expect(response.text).toBe(
      '[{"petId":-9223372036854775808,"quantity":5,"reserved":0,"available":5,"status":"available"},' +
        '{"petId":0,"quantity":5,"reserved":0,"available":5,"status":"available"},' +
        '{"petId":9007199254740993,"quantity":5,"reserved":0,"available":5,"status":"pending"},' +
        '{"petId":9223372036854775807,"quantity":5,"reserved":0,"available":5,"status":"available"}]',
    );
  });

  it('answers HEAD with the headers and no body', async () => {
    await fx.addPets(aPet(1));
    const response = await fx.call('/v1/inventory', { method: 'HEAD', headers: { authorization: key } });
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
  });

  describe('paging', () => {
    beforeEach(async () => {
      await fx.addPets(...[1, 2, 3, 4, 5].map((id) => aPet(id)));
    });

    const ids = (text: string): number[] => (JSON.parse(text) as { petId: number }[]).map((item) => item.petId);

    it('takes at most `limit` entries after the petId `after`', async () => {
      expect(ids((await list('?limit=2')).text)).toEqual([1, 2]);
      expect(ids((await list('?limit=2&after=2')).text)).toEqual([3, 4]);
      expect(ids((await list('?after=4')).text)).toEqual([5]);
      expect(ids((await list('?after=-9223372036854775808&limit=10000')).text)).toEqual([1, 2, 3, 4, 5]);
    });

    it('ignores parameters it does not know', async () => {
      expect(ids((await list('?sort=desc&cache=1')).text)).toEqual([1, 2, 3, 4, 5]);
    });

    it.each([
      ['limit=0', /limit must be an integer from 1 to 10000/],
      ['limit=10001', /limit must be/],
      ['limit=abc', /limit must be/],
      ['limit=1.5', /limit must be/],
      ['limit=', /limit must be/],
      ['limit=1&limit=2', /limit must be/],
      ['after=abc', /after must be a base-10 signed 64-bit integer/],
      ['after=1e3', /after must be/],
      ['after=9223372036854775808', /after must be/],
    ])('refuses ?%s with 400 invalid_query', async (query, message) => {
      const response = await list(`?${query}`);
      expect(response.status).toBe(400);
      expect(JSON.parse(response.text)).toMatchObject({ code: 'invalid_query' });
      expect((JSON.parse(response.text) as { message: string }).message).toMatch(message);
    });
  });
});

/** A repository that yields the memory store's chunks but waits, or fails, where a test says. */
function scriptedInventory(
  memory: InventoryRepository,
  script: {
    readonly failAtChunk?: number;
    readonly holdAtChunk?: number;
    readonly release?: Promise<void>;
    /** Called when the list is left, read to its end or not. */
    readonly finished?: () => void;
  },
): InventoryRepository {
  return delegateInventory(memory, {
    async *list(query?: InventoryQuery): AsyncIterable<readonly InventoryItem[]> {
      let index = 0;
      try {
        for await (const chunk of memory.list(query)) {
          if (index === script.failAtChunk) throw new Error('the store failed mid-list');
          if (index === script.holdAtChunk) await script.release;
          yield chunk;
          index += 1;
        }
      } finally {
        script.finished?.();
      }
    },
  });
}

describe('GET /v1/inventory streams a long list', () => {
  const addMany = async (fx: HttpFixture, count: number): Promise<void> => {
    await fx.addPets(...Array.from({ length: count }, (_, i) => aPet(i + 1, { name: `p${i}` })));
  };

  it('sends 20,000 pets complete and in order, chunked as the store yields them', async () => {
    const fx = await startHttpFixture();
    try {
      await addMany(fx, 20_000);
      const key = await fx.bearer('free');
      const response = await fx.call('/v1/inventory', { headers: { authorization: key } });
      expect(response.status).toBe(200);
      expect(response.headers.get('transfer-encoding')).toBe('chunked');
      const items = JSON.parse(response.text) as { petId: number }[];
      expect(items).toHaveLength(20_000);
      expect(items.every((item, i) => item.petId === i + 1)).toBe(true);
    } finally {
      await fx.close();
    }
  });

  it('sends the first chunks before the store has produced the rest', async () => {
    const hold = gate();
    const fx = await startHttpFixture({
      inventory: (memory) => scriptedInventory(memory, { holdAtChunk: 2, release: hold.passed }),
    });
    try {
      await addMany(fx, 3_500);
      const key = await fx.bearer('free');
      const response = await fetch(`${fx.origin}/v1/inventory`, { headers: { authorization: key } });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let received = '';
      // The store is holding its third chunk: what arrives now was streamed, not buffered whole.
      while (!received.includes('"petId":2000,')) received += decoder.decode((await reader.read()).value);
      expect(received.startsWith('[{"petId":1,')).toBe(true);
      expect(received).not.toContain('"petId":2001,');
      hold.open();
      for (let part = await reader.read(); !part.done; part = await reader.read())
        received += decoder.decode(part.value);
      expect((JSON.parse(received) as unknown[]).length).toBe(3_500);
      expectMatchesDocument({
        method: 'GET',
        path: '/v1/inventory',
        status: 200,
        headers: response.headers,
        text: received,
      });
    } finally {
      hold.open();
      await fx.close();
    }
  });

  it('destroys the connection when the store fails mid-list, so no cut-off array looks complete', async () => {
    const fx = await startHttpFixture({ inventory: (memory) => scriptedInventory(memory, { failAtChunk: 2 }) });
    try {
      await addMany(fx, 3_500);
      const key = await fx.bearer('free');
      const response = await fetch(`${fx.origin}/v1/inventory`, { headers: { authorization: key } });
      expect(response.status).toBe(200);
      await expect(response.text()).rejects.toThrow();
      expect(fx.logLines.some((line) => line.msg === 'response failed after it started')).toBe(true);
      expect((await fx.call('/livez')).status).toBe(200);
    } finally {
      await fx.close();
    }
  });

  it('stops reading the store when the client leaves mid-list, and logs it as no failure', async () => {
    const hold = gate();
    const listLeft = gate();
    const fx = await startHttpFixture({
      inventory: (memory) =>
        scriptedInventory(memory, { holdAtChunk: 2, release: hold.passed, finished: listLeft.open }),
    });
    try {
      await addMany(fx, 3_500);
      const leave = new AbortController();
      const response = await fetch(`${fx.origin}/v1/inventory`, {
        headers: { authorization: await fx.bearer('free') },
        signal: leave.signal,
      });
      await (response.body as ReadableStream<Uint8Array>).getReader().read();
      leave.abort();
      await vi.waitFor(() =>
        expect(fx.logLines.map((line) => line.msg)).toContain('the client left before the exchange ended'),
      );
      hold.open();
      await listLeft.passed;
      expect(fx.logLines.filter((line) => Number(line.level) >= 40)).toEqual([]);
      expect((await fx.call('/livez')).status).toBe(200);
    } finally {
      hold.open();
      await fx.close();
    }
  });

  it('answers 500 internal_error when the store fails before the first byte', async () => {
    const fx = await startHttpFixture({ inventory: (memory) => scriptedInventory(memory, { failAtChunk: 0 }) });
    try {
      await addMany(fx, 10);
      const response = await fx.call('/v1/inventory', { headers: { authorization: await fx.bearer('free') } });
      expect(response.status).toBe(500);
      expect(JSON.parse(response.text)).toMatchObject({ code: 'internal_error' });
    } finally {
      await fx.close();
    }
  });
});
