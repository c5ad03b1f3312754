import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { itemsJson } from '../../src/adapters/http/json-writer.js';
import { openSqliteStorage, type SqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import type { InventoryRepository } from '../../src/application/ports/inventory-repository.js';
import type { InventoryItem } from '../../src/domain/inventory-item.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { aPet } from '../../src/testing/index.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';
import { delegateInventory } from '../support/delegate-inventory.js';
import {
  type ApiResponse,
  type FixtureOptions,
  type HttpFixture,
  jsonWith,
  startHttpFixture,
  UNKNOWN_KEY,
} from './support/http-fixture.js';

const ENTERPRISE = { perMinute: 100_000, perDay: 1_000_000 };

/** Counts the lists read from the store, so a test can tell a kept answer from a fresh read. */
function countingReads(): { readonly reads: () => number; readonly wrap: FixtureOptions['inventory'] } {
  let reads = 0;
  return {
    reads: () => reads,
    wrap: (inner: InventoryRepository): InventoryRepository =>
      delegateInventory(inner, {
        list: (query) => {
          reads += 1;
          return inner.list(query);
        },
        // A page is read with its names, by listNamed: a read of the store all the same.
        listNamed: (query) => {
          reads += 1;
          return inner.listNamed(query);
        },
      }),
  };
}

const petIds = (response: ApiResponse): number[] =>
  (JSON.parse(response.text) as { petId: number }[]).map((item) => item.petId);

const quantityOf = (response: ApiResponse, id: number): number | undefined =>
  (JSON.parse(response.text) as { petId: number; quantity: number }[]).find((item) => item.petId === id)?.quantity;

describe('GET /v1/inventory answers an unchanged list without reading the store again', () => {
  let fx: HttpFixture;
  let key: string;
  let counter: ReturnType<typeof countingReads>;
  beforeEach(async () => {
    counter = countingReads();
    fx = await startHttpFixture({ inventory: counter.wrap });
    key = await fx.bearer('enterprise', ENTERPRISE);
    await fx.addPets(aPet(1), aPet(2), aPet(3));
  });
  afterEach(async () => {
    await fx.close();
  });

  const list = (query = '', authorization = key) => fx.call(`/v1/inventory${query}`, { headers: { authorization } });

  it('answers two GETs without a change with the same bytes and Content-Length, reading the store once', async () => {
    const first = await list();
    const second = await list();
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect(petIds(second)).toEqual([1, 2, 3]);
    expect(second.headers.get('content-length')).toBe(String(Buffer.byteLength(second.text)));
    expect(counter.reads()).toBe(1);
  });

  it('shows a PATCH in the very next GET', async () => {
    await list();
    const patched = await fx.call('/v1/inventory/2', {
      method: 'PATCH',
      headers: jsonWith(key),
      body: '{"quantity":0}',
    });
    expect(patched.status).toBe(200);
    const after = await list();
    expect(after.text).toContain('{"petId":2,"quantity":0,"reserved":0,"available":0,"status":"sold"}');
    expect(counter.reads()).toBe(2);
  });

  it('shows writes made past the HTTP adapter, as by another writer of the store, in the next GET', async () => {
    await list();
    const updated = await fx.core.updateStock.execute({ petId: petId(3n), quantity: quantity(42), actor: 'key_x' });
    expect(updated.ok).toBe(true);
    expect(quantityOf(await list(), 3)).toBe(42);
    await fx.addPets(aPet(4));
    expect(petIds(await list())).toEqual([1, 2, 3, 4]);
  });

  it('never keeps a list longer than one chunk: each GET streams it from the store', async () => {
    await fx.addPets(...Array.from({ length: 1_500 }, (_, i) => aPet(i + 10)));
    for (const _ of [1, 2]) {
      const response = await list();
      expect(response.headers.get('transfer-encoding')).toBe('chunked');
      expect(petIds(response)).toHaveLength(1_503);
    }
    expect(counter.reads()).toBe(2);
  });

  it('reads a paged list from the store, whatever is kept', async () => {
    await list();
    expect(petIds(await list('?after=1&limit=1'))).toEqual([2]);
    expect(petIds(await list('?limit=2'))).toEqual([1, 2]);
    expect(counter.reads()).toBe(3);
  });

  it('answers HEAD from the kept list with its length and no body', async () => {
    const full = await list();
    const head = await fx.call('/v1/inventory', { method: 'HEAD', headers: { authorization: key } });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(full.text)));
  });
});

describe('a kept list is still guarded', () => {
  let fx: HttpFixture;
  beforeEach(async () => {
    fx = await startHttpFixture();
    await fx.addPets(aPet(1));
    const reader = await fx.bearer('enterprise', ENTERPRISE);
    expect((await fx.call('/v1/inventory', { headers: { authorization: reader } })).status).toBe(200);
  });
  afterEach(async () => {
    await fx.close();
  });

  it('refuses a request with an unknown key, or none, with 401', async () => {
    expect((await fx.call('/v1/inventory', { headers: { authorization: `Bearer ${UNKNOWN_KEY}` } })).status).toBe(401);
    expect((await fx.call('/v1/inventory')).status).toBe(401);
  });

  it('refuses a key revoked after it read the list', async () => {
    const key = await fx.bearer('pro');
    expect((await fx.call('/v1/inventory', { headers: { authorization: key } })).status).toBe(200);
    expect((await fx.core.revokeApiKey.execute({ idOrKey: key.slice('Bearer '.length) })).ok).toBe(true);
    expect((await fx.call('/v1/inventory', { headers: { authorization: key } })).status).toBe(401);
  });

  it('limits every request and gives each its own headers', async () => {
    const key = await fx.bearer('enterprise', { perMinute: 3, perDay: 1_000 });
    const answers: ApiResponse[] = [];
    for (const _ of [1, 2, 3, 4]) answers.push(await fx.call('/v1/inventory', { headers: { authorization: key } }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0', '0']);
    expect(new Set(answers.map((a) => a.headers.get('x-request-id'))).size).toBe(4);
  });
});

describe('GET /v1/inventory over SQLite, with another connection writing the file', () => {
  let temp: TempDatabase;
  let storage: SqliteStorage;
  let fx: HttpFixture;
  let key: string;
  beforeEach(async () => {
    temp = await tempDatabase();
    storage = openSqliteStorage({ path: temp.path });
    fx = await startHttpFixture({ storage });
    key = await fx.bearer('enterprise', ENTERPRISE);
    await fx.addPets(aPet(1, { quantity: quantity(5) }));
  });
  afterEach(async () => {
    await fx.close();
    await storage.close();
    await temp.remove();
  });

  /** Commits `sql` on a connection of its own, as another service process or the admin CLI would. */
  const elsewhere = (sql: string): void => {
    const db = new Database(temp.path);
    try {
      db.prepare(sql).run();
    } finally {
      db.close();
    }
  };
  const list = () => fx.call('/v1/inventory', { headers: { authorization: key } });

  it('shows a stock change committed by the other connection in the next GET', async () => {
    expect(quantityOf(await list(), 1)).toBe(5);
    elsewhere('UPDATE pets SET quantity = 8 WHERE id = 1');
    expect(quantityOf(await list(), 1)).toBe(8);
  });

  it('streams a long list as the store writes its JSON, byte for byte the text of its items', async () => {
    await fx.addPets(...Array.from({ length: 2_500 }, (_, i) => aPet(-1_251 + i * 3, { name: `p${i}` })));
    const items: InventoryItem[] = [];
    for await (const chunk of storage.inventory.list()) items.push(...chunk);
    for (const query of ['', '?after=-7']) {
      const response = await fx.call(`/v1/inventory${query}`, { headers: { authorization: key } });
      expect(response.headers.get('transfer-encoding')).toBe('chunked');
      const expected = query === '' ? items : items.filter((item) => item.petId > -7n);
      expect(response.text).toBe(`[${itemsJson(expected)}]`);
    }
  });

  it('refuses a key the other connection revoked, at the next request', async () => {
    expect((await list()).status).toBe(200);
    elsewhere('UPDATE api_keys SET revoked_at_ms = 1');
    expect((await list()).status).toBe(401);
  });
});
