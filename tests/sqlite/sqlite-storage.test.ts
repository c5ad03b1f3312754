import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MIGRATIONS } from '../../src/adapters/sqlite/migrations.js';
import { openSqliteStorage, type SqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { petId } from '../../src/domain/pet-id.js';
import { PLAN_POLICIES } from '../../src/domain/plan.js';
import { quantity } from '../../src/domain/quantity.js';
import type { StockCommand } from '../../src/domain/stock-command.js';
import { aKeyRecord, anOrder, aPet, drain } from '../../src/testing/index.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';

const AT = Date.UTC(2026, 5, 1);
/** A stock write of pet `id` to `q`, as key `k` at AT. */
const setStock = (id: bigint, q: number): StockCommand => ({
  orders: [{ kind: 'set', petId: petId(id), quantity: quantity(q) }],
  actor: 'k',
  atMs: AT,
});

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
  for (const storage of opened) await storage.close();
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
    await first.close();
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
    await storage.keys.add({ ...aKeyRecord('key_a'), hash: 'a'.repeat(64) }, 'test');
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

describe.each(['inline', 'worker'] as const)('the group commit of stock writes (%s writer)', (writer) => {
  it('settles each write only once it is committed: another connection reads it as the promise resolves', async () => {
    const storage = open({ writer });
    const pets = Array.from({ length: 30 }, (_, i) => i + 1);
    await storage.pets.addAll(pets.map((id) => aPet(id, { quantity: quantity(3) })));
    // Read in the reaction to each promise, before this thread does anything else: had the write been
    // answered before its COMMIT, the other connection would still read 3.
    const seen = await Promise.all(
      pets.map((id) => storage.inventory.write(setStock(BigInt(id), 100 + id)).then(() => quantityOnDisk(id))),
    );
    expect(seen).toEqual(pets.map((id) => 100 + id));
  });

  it('fails only the write that throws, and commits the others of its batch', async () => {
    const storage = open({ writer });
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
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(Error);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/status lost is not a PetStatus/);
    expect([quantityOnDisk(1), quantityOnDisk(2)]).toEqual([5, 3]);
    expect((await storage.changes.history(petId(1n), { limit: 10 }))?.map((h) => h.after.quantity)).toEqual([5, 4]);
  });

  it('commits the writes still pending when the store is closed, then refuses new ones', async () => {
    const storage = open({ writer });
    await storage.pets.addAll([aPet(1, { quantity: quantity(3) })]);
    const pending = Array.from({ length: 20 }, (_, i) => storage.inventory.write(setStock(1n, 10 + i)));
    await storage.close();
    const results = await Promise.all(pending);
    expect(results.map((r) => r.ok && r.value.entries[0]?.change.after.quantity)).toEqual(
      Array.from({ length: 20 }, (_, i) => 10 + i),
    );
    expect(quantityOnDisk(1)).toBe(29);
    await expect(storage.inventory.write(setStock(1n, 1))).rejects.toThrow();
    expect(quantityOnDisk(1)).toBe(29);
  });

  it('waits for another connection’s write lock no longer than the busy timeout, then is unavailable (SQLITE_BUSY)', async () => {
    const storage = open({ writer, busyTimeoutMs: 50 });
    await storage.pets.addAll([aPet(1)]);
    const other = new Database(temp.path);
    other.exec('BEGIN IMMEDIATE');
    try {
      await expect(storage.inventory.write(setStock(1n, 6))).rejects.toMatchObject({
        code: 'unavailable',
        message: `${temp.path}: database is locked`,
        cause: { code: 'SQLITE_BUSY' },
      });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  });

  it('reports itself unhealthy from a write the file refused until a write succeeds, telling each change once', async () => {
    const changes: Array<readonly [boolean, string | undefined]> = [];
    const storage = open({
      writer,
      busyTimeoutMs: 20,
      onHealthChange: (healthy, cause) => changes.push([healthy, cause?.message]),
    });
    await storage.pets.addAll([aPet(1)]);
    expect(storage.healthy()).toBe(true);
    const other = new Database(temp.path);
    other.exec('BEGIN IMMEDIATE');
    try {
      for (const quantity of [6, 7]) await expect(storage.inventory.write(setStock(1n, quantity))).rejects.toThrow();
      expect(storage.healthy()).toBe(false);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    await storage.inventory.write(setStock(1n, 8));
    expect(storage.healthy()).toBe(true);
    expect(changes).toEqual([
      [false, `${temp.path}: database is locked`],
      [true, undefined],
    ]);
  });

  it('tells onGroupCommit how many writes each group commit carried, once it is committed', async () => {
    const committed: number[] = [];
    const storage = open({ writer, onGroupCommit: (writes) => committed.push(writes) });
    await storage.pets.addAll([aPet(1), aPet(2)]);
    await Promise.all([1n, 2n, 1n].map((id, i) => storage.inventory.write(setStock(id, 5 + i))));
    await storage.inventory.write(setStock(2n, 9));
    expect(committed).toEqual([3, 1]);
  });

  it('forgets expired idempotency outcomes through the writer', async () => {
    const storage = open({ writer });
    await storage.pets.addAll([aPet(1)]);
    const claim = (key: string, expiresAtMs: number) => ({ scope: 'k', key, fingerprint: 'f', expiresAtMs });
    await storage.inventory.write({ ...setStock(1n, 2), idempotency: claim('old', AT + 1) });
    await storage.inventory.write({ ...setStock(1n, 3), idempotency: claim('new', AT + 100) });
    expect(await storage.inventory.forgetExpiredOutcomes(AT + 1, 10)).toBe(1);
    expect(peek((db) => db.prepare('SELECT key FROM idempotency_claims').pluck().all())).toEqual(['new']);
  });
});

describe('the writer thread', () => {
  it('leaves this thread free while a write waits: it reads and turns while another connection holds the lock', async () => {
    const storage = open({ writer: 'worker', busyTimeoutMs: 20_000 });
    await storage.pets.addAll([aPet(1, { quantity: quantity(3) })]);
    const other = new Database(temp.path);
    other.exec('BEGIN IMMEDIATE');
    let write: Promise<unknown>;
    try {
      write = storage.inventory.write(setStock(1n, 4));
      // A writer on this thread would now block it in SQLite's busy wait, and these would not run
      // before the write had failed with SQLITE_BUSY.
      await nextTurn();
      expect((await storage.inventory.get(petId(1n)))?.item.quantity).toBe(3);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(await write).toMatchObject({ ok: true, value: { entries: [{ change: { after: { quantity: 4 } } }] } });
  });

  it('posts the writes of a turn as one message, and the next ones once the thread answered those', async () => {
    const storage = open({ writer: 'worker', busyTimeoutMs: 20_000 });
    await storage.pets.addAll([aPet(1)]);
    await storage.inventory.write(setStock(1n, 1));
    const posted = vi.spyOn(Worker.prototype, 'postMessage');
    const sizes = () => posted.mock.calls.map(([requests]) => (requests as unknown[]).length);
    // Another connection holds the write lock: the thread cannot answer the first batch yet.
    const other = new Database(temp.path);
    other.exec('BEGIN IMMEDIATE');
    const writes: Promise<unknown>[] = [];
    try {
      for (let i = 0; i < 30; i += 1) writes.push(storage.inventory.write(setStock(1n, 10 + i)));
      await nextTurn();
      for (let i = 0; i < 20; i += 1) writes.push(storage.inventory.write(setStock(1n, 40 + i)));
      await nextTurn();
      expect(sizes()).toEqual([30]);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    await Promise.all(writes);
    expect(sizes()).toEqual([30, 20]);
    expect(quantityOnDisk(1)).toBe(59);
  });

  it('rejects a write it cannot put into a message, without throwing, and takes the next writes', async () => {
    const storage = open({ writer: 'worker' });
    await storage.pets.addAll([aPet(1)]);
    const unsendable = { ...setStock(1n, 5), orders: undefined } as unknown as StockCommand;
    let answer: Promise<unknown> | undefined;
    expect(() => {
      answer = storage.inventory.write(unsendable);
    }).not.toThrow();
    await expect(answer).rejects.toThrow(TypeError);
    // Each later write settles with its own answer: none was taken for the one that failed.
    const [first, second] = await Promise.all([
      storage.inventory.write(setStock(1n, 7)),
      storage.inventory.write(setStock(1n, 8)),
    ]);
    expect(first.ok && first.value.entries[0]?.change.after.quantity).toBe(7);
    expect(second.ok && second.value.entries[0]?.change.after.quantity).toBe(8);
    expect(quantityOnDisk(1)).toBe(8);
  });

  it('fails the writes it had not answered when it dies, logs why, and a new thread takes the next write', async () => {
    const logged: { obj: object; msg: string }[] = [];
    const storage = open({ writer: 'worker', logger: { error: (obj, msg) => logged.push({ obj, msg }) } });
    await storage.pets.addAll([aPet(1, { quantity: quantity(3) })]);
    const posted = vi.spyOn(Worker.prototype, 'postMessage');
    await storage.inventory.write(setStock(1n, 4));
    const first = posted.mock.contexts[0] as Worker;
    // Another connection holds the write lock, so the thread cannot answer the write before it dies.
    const other = new Database(temp.path);
    other.exec('BEGIN IMMEDIATE');
    try {
      const unanswered = storage.inventory.write(setStock(1n, 5));
      await first.terminate();
      await expect(unanswered).rejects.toThrow('the SQLite writer thread stopped before answering');
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(logged).toEqual([
      {
        obj: { err: new Error('the thread exited with code 1'), unanswered: 1 },
        msg: 'the SQLite writer thread stopped; its unanswered writes failed, the next write starts it again',
      },
    ]);
    expect(await storage.inventory.write(setStock(1n, 6))).toMatchObject({
      ok: true,
      value: { entries: [{ version: 3 }] },
    });
    expect(posted.mock.contexts.at(-1)).not.toBe(first);
    expect(quantityOnDisk(1)).toBe(6);
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
    await expect(storage.keys.add({ ...record, hash: 'a'.repeat(64) }, 'test')).rejects.toThrow("that plan's limits");
    expect(await storage.keys.list()).toEqual([]);
  });
});
