import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStorage, type SqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { drain } from '../contracts/storage-fixture.js';
import { aKeyRecord, aPet } from '../support/mothers.js';
import { type TempDatabase, tempDatabase } from './temp-database.js';
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
  await storage.keys.add({ ...aKeyRecord('key_a'), hash: HASH });
});
afterEach(async () => {
  await storage.close();
  await temp.remove();
});

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
  it('changes when another connection commits a stock change, and the list then shows it', async () => {
    const before = await storage.inventory.stamp();
    onAnotherConnection((db) => db.prepare('UPDATE pets SET quantity = 9, status = ? WHERE id = 1').run('available'));
    expect(await storage.inventory.stamp()).not.toBe(before);
    expect((await drain(storage.inventory.list())).items).toEqual([{ petId: 1n, quantity: 9, status: 'available' }]);
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

  it('changes when its own writer thread commits a stock write, and the list then shows it', async () => {
    const threaded = openSqliteStorage({ path: temp.path, writer: 'worker' });
    try {
      const before = await threaded.inventory.stamp();
      await threaded.inventory.write({ petId: petId(1n), quantity: quantity(4), actor: 'k', atMs: AT });
      expect(await threaded.inventory.stamp()).not.toBe(before);
      expect((await drain(threaded.inventory.list())).items[0]?.quantity).toBe(4);
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
      await other.keys.revoke('key_a', AT);
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
    await storage.keys.revoke('key_a', AT);
    expect((await storage.keys.findByHash(HASH))?.revokedAtMs).toBe(AT);
  });

  it('are seen changed at the next lookup when another connection edits the row directly', async () => {
    expect((await storage.keys.findByHash(HASH))?.label).toBeNull();
    onAnotherConnection((db) => db.prepare("UPDATE api_keys SET label = 'moved' WHERE id = 'key_a'").run());
    expect((await storage.keys.findByHash(HASH))?.label).toBe('moved');
  });
});
