import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { columnPieces, itemPieces } from '../../src/adapters/http/inventory-stream.js';
import { openSqliteStorage, type SqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import {
  type InventoryColumnsSource,
  type InventoryQuery,
  listsColumns,
} from '../../src/application/ports/inventory-repository.js';
import { petId } from '../../src/domain/pet-id.js';
import type { PetStatus } from '../../src/domain/pet-status.js';
import { quantity } from '../../src/domain/quantity.js';
import { aPet } from '../../src/testing/index.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';

const STATUSES: readonly PetStatus[] = ['available', 'pending', 'sold'];
const LARGEST_ID = 2n ** 63n - 1n;

let temp: TempDatabase;
let storage: SqliteStorage;
beforeEach(async () => {
  temp = await tempDatabase();
  storage = openSqliteStorage({ path: temp.path });
});
afterEach(async () => {
  await storage.close();
  await temp.remove();
});

const collect = async (pieces: AsyncIterable<string>): Promise<string[]> => {
  const out: string[] = [];
  for await (const piece of pieces) out.push(piece);
  return out;
};

function columnsSource(): InventoryColumnsSource {
  const { inventory } = storage;
  if (!listsColumns(inventory)) throw new Error('the SQLite repository lists no columns');
  return inventory;
}

/** The JSON the HTTP adapter writes of `query` from the store's columns, and from its items, chunk by chunk. */
async function bothWays(query?: InventoryQuery): Promise<{ columns: string[]; items: string[] }> {
  return {
    columns: await collect(columnPieces(columnsSource().listColumns(query))),
    items: await collect(itemPieces(storage.inventory.list(query))),
  };
}

describe('the SQLite store’s inventory list by columns, written as JSON by the HTTP adapter', () => {
  it('is nothing for an empty store', async () => {
    expect(await bothWays()).toEqual({ columns: [], items: [] });
  });

  it('answers, chunk for chunk, the text the items do: every status, any id', async () => {
    const ids = [-(2n ** 63n), -1n, 0n, 1n, 2n, 9_007_199_254_740_993n, LARGEST_ID - 1n, LARGEST_ID];
    await storage.pets.addAll([
      ...Array.from({ length: 2_345 }, (_, i) =>
        aPet(1_000 + i * 7, {
          quantity: quantity((i * 7919) % 2_147_483_647),
          status: STATUSES[i % 3] as PetStatus,
        }),
      ),
      ...ids.map((id, i) => aPet(id, { quantity: quantity(i === 0 ? 0 : 2_147_483_647), status: 'sold' })),
    ]);
    const { columns, items } = await bothWays();
    expect(columns).toEqual(items);
    expect(columns.length).toBe(3);
    expect(columns.at(-1)).toMatch(
      /\{"petId":9223372036854775806,[^}]*\},\{"petId":9223372036854775807,"quantity":2147483647,"reserved":0,"available":2147483647,"status":"sold"\}$/,
    );
    expect(columns.join(',').match(/\{"petId"/g)).toHaveLength(2_353);
  });

  it('writes what held reservations set aside, as the items do, counting only the holds not yet expired', async () => {
    await storage.pets.addAll([aPet(1, { quantity: quantity(9) }), aPet(2), aPet(3, { quantity: quantity(4) })]);
    const now = Date.now();
    const reserve = (id: bigint, q: number, ttlMs: number, atMs = now) =>
      storage.inventory.writeReservation({
        reservation: { kind: 'reserve', petId: petId(id), quantity: quantity(q), ttlMs },
        actor: 'key_a',
        atMs,
      });
    await reserve(1n, 2, 3_600_000);
    await reserve(1n, 3, 3_600_000);
    // Made in the past and lapsed already, yet not marked: it counts for nothing.
    await reserve(3n, 4, 1_000, now - 60_000);
    const { columns, items } = await bothWays();
    expect(columns).toEqual(items);
    expect(columns).toEqual([
      '{"petId":1,"quantity":9,"reserved":5,"available":4,"status":"available"},' +
        '{"petId":2,"quantity":5,"reserved":0,"available":5,"status":"available"},' +
        '{"petId":3,"quantity":4,"reserved":0,"available":4,"status":"available"}',
    ]);
  });

  it('pages as the list does: after an id, at most a limit, across negative ids', async () => {
    // Ids -1,200 to 299: the first chunk ends at -201, so the next one starts after a negative id.
    await storage.pets.addAll(Array.from({ length: 1_500 }, (_, i) => aPet(i - 1_200)));
    for (const query of [
      {},
      { after: petId(-1_100n) },
      { limit: 1 },
      { after: petId(-202n), limit: 1_001 },
      { limit: 0 },
    ]) {
      const { columns, items } = await bothWays(query);
      expect(columns).toEqual(items);
    }
    expect((await bothWays()).columns).toHaveLength(2);
    expect((await bothWays({ after: petId(298n) })).columns).toEqual([
      '{"petId":299,"quantity":5,"reserved":0,"available":5,"status":"available"}',
    ]);
    expect((await bothWays({ after: petId(299n) })).columns).toEqual([]);
  });

  it('filters as the list does: by status, by what is available (holds counted), both, with paging', async () => {
    // 3,000 pets, more than a walk's budget, with low stock rare and one pet's stock held.
    await storage.pets.addAll(
      Array.from({ length: 3_000 }, (_, i) =>
        aPet(i + 1, { quantity: quantity(i % 500 === 0 ? 1 : 40 + (i % 9)), status: STATUSES[i % 3] as PetStatus }),
      ),
    );
    const held = await storage.inventory.writeReservation({
      reservation: { kind: 'reserve', petId: petId(2_000n), quantity: quantity(40), ttlMs: 3_600_000 },
      actor: 'key_a',
      atMs: Date.now(),
    });
    expect(held.ok).toBe(true);
    for (const query of [
      { statuses: ['sold'] },
      { statuses: ['available', 'pending'], limit: 1_001 },
      { maxAvailable: 2 },
      { maxAvailable: 2, after: petId(1_200n), limit: 3 },
      { statuses: ['pending'], maxAvailable: 45 },
    ] satisfies InventoryQuery[]) {
      const { columns, items } = await bothWays(query);
      expect(columns).toEqual(items);
    }
    expect((await bothWays({ maxAvailable: 2 })).columns.join(',').match(/"petId":[0-9]+/g)).toEqual([
      '"petId":1',
      '"petId":501',
      '"petId":1001',
      '"petId":1501',
      '"petId":2000',
      '"petId":2001',
      '"petId":2501',
    ]);
  });

  it('fails the listing when a stored row is no valid item, as the items do', async () => {
    await storage.pets.addAll([aPet(1), aPet(2)]);
    const db = new Database(temp.path);
    db.pragma('ignore_check_constraints = ON');
    db.prepare("UPDATE pets SET status = 'lost' WHERE id = 2").run();
    db.close();
    await expect(collect(columnPieces(columnsSource().listColumns()))).rejects.toThrow(/not a valid InventoryItem/);
    await expect(collect(itemPieces(storage.inventory.list()))).rejects.toThrow();
  });
});
