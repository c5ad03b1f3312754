import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStorage, type SqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { aKeyRecord, aPet, drain } from '../../src/testing/index.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';
import { startWorker } from './worker-process.js';

const INCREMENT_STOCK = join('tests', 'sqlite', 'workers', 'increment-stock.ts');
const REVOKE_KEY = join('tests', 'sqlite', 'workers', 'revoke-key.ts');
const AT = Date.UTC(2026, 5, 1);
const HASH = 'c'.repeat(64);

let temp: TempDatabase;
let storage: SqliteStorage;
beforeEach(async () => {
  temp = await tempDatabase();
  storage = openSqliteStorage({ path: temp.path });
  await storage.pets.addAll([aPet(1, { quantity: quantity(0), status: 'sold' })]);
  await storage.keys.add({ ...aKeyRecord('key_a'), hash: HASH }, 'test');
});
afterEach(async () => {
  await storage.close();
  await temp.remove();
});

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Runs `write` on a second connection to the file, as another process's store would. */
function onAnotherConnection(write: (db: Database.Database) => void): void {
  const db = new Database(temp.path);
  try {
    write(db);
  } finally {
    db.close();
  }
}

describe('the inventory stamp of a SQLite store', () => {
  it('changes from the next turn of the event loop when another connection commits, and the list then shows it', async () => {
    const before = await storage.inventory.stamp();
    onAnotherConnection((db) => db.prepare('UPDATE pets SET quantity = 9, status = ? WHERE id = 1').run('available'));
    // Read once a turn: the requests of one turn share one read of PRAGMA data_version.
    expect(await storage.inventory.stamp()).toBe(before);
    await nextTurn();
    expect(await storage.inventory.stamp()).not.toBe(before);
    expect((await drain(storage.inventory.list())).items).toEqual([
      { petId: 1n, quantity: 9, status: 'available', reserved: 0 },
    ]);
  });

  it('changes when another process commits a stock update', async () => {
    const before = await storage.inventory.stamp();
    const worker = startWorker(INCREMENT_STOCK, [temp.path, '1', '1', 'inline']);
    await worker.waitFor('ready');
    worker.child.stdin.write('go\n');
    expect(await worker.exited).toEqual({ code: 0, signal: null, stderr: '' });
    expect(await storage.inventory.stamp()).not.toBe(before);
    expect((await drain(storage.inventory.list())).items[0]?.quantity).toBe(1);
  });

  it('changes as soon as its own writer thread answers a stock write, and the list then shows it', async () => {
    const threaded = openSqliteStorage({ path: temp.path, writer: 'worker' });
    try {
      // Read the stamp at the end of every turn, so that a read of it is usually remembered when the
      // thread's answer arrives: the read in the turn of the answer must still see each write.
      let reading = true;
      const readEveryTurn = (): void => {
        if (!reading) return;
        void threaded.inventory.stamp();
        setImmediate(readEveryTurn);
      };
      readEveryTurn();
      try {
        for (let n = 1; n <= 20; n += 1) {
          const before = await threaded.inventory.stamp();
          const written = threaded.inventory.write({
            orders: [{ kind: 'set', petId: petId(1n), quantity: quantity(n % 5) }],
            actor: 'k',
            atMs: AT,
          });
          expect(await written.then(() => threaded.inventory.stamp())).not.toBe(before);
        }
      } finally {
        reading = false;
      }
      expect((await drain(threaded.inventory.list())).items[0]?.quantity).toBe(0);
    } finally {
      await threaded.close();
    }
  });

  it('stays the same while other connections only read', async () => {
    const before = await storage.inventory.stamp();
    onAnotherConnection((db) => db.prepare('SELECT * FROM pets').all());
    expect(await storage.inventory.stamp()).toBe(before);
  });
});

describe('the inventory stamp across a reopening', () => {
  it('never repeats a stamp handed out before the store was closed', async () => {
    const first = await storage.inventory.stamp();
    await storage.close();
    storage = openSqliteStorage({ path: temp.path });
    expect(await storage.inventory.stamp()).not.toBe(first);
  });
});

describe('API keys looked up by hash', () => {
  it('are seen revoked at the next lookup once another connection revokes them', async () => {
    expect((await storage.keys.findByHash(HASH))?.revokedAtMs).toBeNull();
    const other = openSqliteStorage({ path: temp.path });
    try {
      await other.keys.revoke('key_a', { actor: 'test', atMs: AT });
    } finally {
      await other.close();
    }
    expect((await storage.keys.findByHash(HASH))?.revokedAtMs).toBe(AT);
  });

  it('are seen revoked at the next lookup once another process revokes them', async () => {
    expect((await storage.keys.findByHash(HASH))?.revokedAtMs).toBeNull();
    const worker = startWorker(REVOKE_KEY, [temp.path, 'key_a']);
    expect(await worker.exited).toEqual({ code: 0, signal: null, stderr: '' });
    expect((await storage.keys.findByHash(HASH))?.revokedAtMs).toEqual(expect.any(Number));
  });

  it('are seen revoked at the next lookup once this store revokes them', async () => {
    expect((await storage.keys.findByHash(HASH))?.revokedAtMs).toBeNull();
    await storage.keys.revoke('key_a', { actor: 'test', atMs: AT });
    expect((await storage.keys.findByHash(HASH))?.revokedAtMs).toBe(AT);
  });

  it('are seen changed at the next lookup when another connection edits the row directly', async () => {
    expect((await storage.keys.findByHash(HASH))?.name).toBeNull();
    onAnotherConnection((db) => db.prepare("UPDATE api_keys SET label = 'moved' WHERE id = 'key_a'").run());
    expect((await storage.keys.findByHash(HASH))?.name).toBe('moved');
  });
});
