import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MIGRATIONS } from '../../src/adapters/sqlite/migrations.js';
import { openSqliteStorage, type SqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { petId } from '../../src/domain/pet-id.js';
import { PLAN_POLICIES } from '../../src/domain/plan.js';
import { quantity } from '../../src/domain/quantity.js';
import { drain } from '../contracts/storage-fixture.js';
import { aKeyRecord, anOrder, aPet } from '../support/mothers.js';
import { type TempDatabase, tempDatabase } from './temp-database.js';

const AT = Date.UTC(2026, 5, 1);
/** A stock write of pet `id` to `q`, as key `k` at AT. */
const setStock = (id: bigint, q: number) => ({ petId: petId(id), quantity: quantity(q), actor: 'k', atMs: AT });

let temp: TempDatabase;
let opened: SqliteStorage[];
const open = (options: Omit<Parameters<typeof openSqliteStorage>[0], 'path'> = {}): SqliteStorage => {
  const storage = openSqliteStorage({ path: temp.path, ...options });
  opened.push(storage);
  return storage;
};
/** A second connection of our own, as another process would have. */
const peek = <T>(read: (db: Database.Database) => T): T => {
  const db = new Database(temp.path, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
};
const quantityOnDisk = (id: number): number | undefined =>
  peek((db) => db.prepare<[number], { quantity: number }>('SELECT quantity FROM pets WHERE id = ?').get(id))?.quantity;

beforeEach(async () => {
  temp = await tempDatabase();
  opened = [];
});
afterEach(async () => {
  vi.restoreAllMocks();
  for (const storage of opened) storage.close();
  await temp.remove();
});

describe('opening a database', () => {
  it('creates the missing folders and the file, in WAL mode, at the newest schema version', () => {
    const path = join(temp.dir, 'a', 'b', 'petstore.db');
    opened.push(openSqliteStorage({ path }));
    expect(existsSync(path)).toBe(true);
    const db = new Database(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    db.close();
  });

  it('sets synchronous FULL by default, or NORMAL when told, with busy_timeout and foreign keys', () => {
    const pragma = vi.spyOn(Database.prototype, 'pragma');
    open();
    const first = pragma.mock.contexts[0] as Database.Database;
    expect(first.pragma('synchronous', { simple: true })).toBe(2n);
    expect(first.pragma('busy_timeout', { simple: true })).toBe(5000n);
    expect(first.pragma('foreign_keys', { simple: true })).toBe(1n);
    pragma.mockClear();
    open({ synchronous: 'NORMAL', busyTimeoutMs: 250 });
    const second = pragma.mock.contexts[0] as Database.Database;
    expect(second.pragma('synchronous', { simple: true })).toBe(1n);
    expect(second.pragma('busy_timeout', { simple: true })).toBe(250n);
  });

  it('keeps what was stored when opened again, and migrates nothing twice', async () => {
    const first = open();
    await first.pets.addAll([aPet(7)]);
    first.close();
    const again = open();
    expect((await again.pets.get(petId(7n)))?.name).toBe('pet 7');
  });

  it('refuses a database made by a newer release, naming both versions', () => {
    const db = new Database(temp.path);
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    expect(() => open()).toThrow(
      `the database ${temp.path} has schema version ${MIGRATIONS.length + 1}, newer than the ${MIGRATIONS.length} this program knows`,
    );
  });

  it('refuses a negative busy timeout', () => {
    expect(() => open({ busyTimeoutMs: -1 })).toThrow(RangeError);
  });
});

describe('isEmpty', () => {
  it('is true for a new database and false once it holds a pet, an order or a key', async () => {
    const storage = open();
    expect(storage.isEmpty()).toBe(true);
    await storage.keys.add({ ...aKeyRecord('key_a'), hash: 'a'.repeat(64) });
    expect(storage.isEmpty()).toBe(false);
  });

  it('is false with pets and orders alone', async () => {
    const storage = open();
    await storage.pets.addAll([aPet(1)]);
    expect(storage.isEmpty()).toBe(false);
    await storage.orders.addAll([anOrder(1, petId(1n))]);
    expect(storage.isEmpty()).toBe(false);
  });
});

describe('the group commit of stock writes', () => {
  it('settles a write only once it is committed, and readers elsewhere then see it', async () => {
    const storage = open();
    await storage.pets.addAll([aPet(1, { quantity: quantity(3) })]);
    const pending = storage.inventory.write(setStock(1n, 4));
    expect(quantityOnDisk(1)).toBe(3);
    await pending;
    expect(quantityOnDisk(1)).toBe(4);
  });

  it('fails only the write that throws, and commits the others of its batch', async () => {
    const storage = open();
    await storage.pets.addAll([aPet(1, { quantity: quantity(3) }), aPet(2, { quantity: quantity(3) })]);
    // Pet 2's row is damaged past the table's CHECKs, so reading it for the write throws.
    const db = new Database(temp.path);
    try {
      db.pragma('ignore_check_constraints = ON');
      db.prepare("UPDATE pets SET status = 'lost' WHERE id = 2").run();
    } finally {
      db.close();
    }
    const outcomes = await Promise.allSettled([
      storage.inventory.write(setStock(1n, 4)),
      storage.inventory.write(setStock(2n, 9)),
      storage.inventory.write(setStock(1n, 5)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect([quantityOnDisk(1), quantityOnDisk(2)]).toEqual([5, 3]);
    expect((await storage.changes.history(petId(1n), { limit: 10 }))?.map((h) => h.after.quantity)).toEqual([5, 4]);
  });

  it('commits the writes still pending when the store is closed', async () => {
    const storage = open();
    await storage.pets.addAll([aPet(1, { quantity: quantity(3) })]);
    const pending = storage.inventory.write(setStock(1n, 4));
    storage.close();
    expect(await pending).toMatchObject({ ok: true, value: { change: { after: { quantity: 4 } } } });
    expect(quantityOnDisk(1)).toBe(4);
  });

  it('waits for another connection’s write lock no longer than the busy timeout', async () => {
    const storage = open({ busyTimeoutMs: 50 });
    await storage.pets.addAll([aPet(1)]);
    const other = new Database(temp.path);
    other.exec('BEGIN IMMEDIATE');
    try {
      await expect(storage.inventory.write(setStock(1n, 6))).rejects.toMatchObject({
        code: 'SQLITE_BUSY',
      });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  });
});

describe('listing', () => {
  it('holds no snapshot between chunks: a change committed meanwhile shows in a later chunk', async () => {
    const storage = open();
    await storage.pets.addAll(Array.from({ length: 2_500 }, (_, i) => aPet(i + 1, { quantity: quantity(1) })));
    const seen = new Map<bigint, number>();
    let chunks = 0;
    for await (const chunk of storage.inventory.list()) {
      chunks += 1;
      for (const item of chunk) seen.set(item.petId, item.quantity);
      if (chunks === 1) await storage.inventory.write(setStock(2_000n, 2));
    }
    expect(seen.size).toBe(2_500);
    expect(seen.get(2_000n)).toBe(2);
  });

  it.each([
    ['an unknown status', "status = 'lost'", /status lost is not a PetStatus/],
    ['a negative quantity', 'quantity = -1', /quantity -1 is not an integer/],
    ['a quantity past int32', 'quantity = 2147483648', /quantity 2147483648 is not an integer/],
  ])('throws on a row with %s instead of listing or writing it', async (_, corruption, message) => {
    const storage = open();
    await storage.pets.addAll([aPet(1), aPet(2)]);
    // Written past the table's CHECKs, as a damaged file or a careless tool could leave it.
    const db = new Database(temp.path);
    try {
      db.pragma('ignore_check_constraints = ON');
      db.prepare(`UPDATE pets SET ${corruption} WHERE id = 2`).run();
    } finally {
      db.close();
    }
    await expect(drain(storage.inventory.list())).rejects.toThrow(message);
    await expect(storage.inventory.write(setStock(2n, 3))).rejects.toThrow(message);
  });

  it('reads nothing for a limit of 0', async () => {
    const storage = open();
    await storage.pets.addAll([aPet(1)]);
    const chunks: unknown[] = [];
    for await (const chunk of storage.inventory.list({ limit: 0 })) chunks.push(chunk);
    expect(chunks).toEqual([]);
  });
});

describe('API keys', () => {
  it('refuses a key of a fixed plan that carries other limits', async () => {
    const storage = open();
    const record = aKeyRecord('key_a', { plan: 'free', policy: PLAN_POLICIES.pro });
    await expect(storage.keys.add({ ...record, hash: 'a'.repeat(64) })).rejects.toThrow("that plan's limits");
    expect(await storage.keys.list()).toEqual([]);
  });
});
