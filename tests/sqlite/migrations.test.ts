import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/adapters/sqlite/migrations.js';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { petId } from '../../src/domain/pet-id.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';

let temp: TempDatabase;
beforeEach(async () => {
  temp = await tempDatabase();
});
afterEach(async () => {
  await temp.remove();
});

/** A file at schema `version`, made by running the first `version` steps as a release of then would have. */
function databaseAt(version: number, fill: (db: Database.Database) => void): void {
  const db = new Database(temp.path);
  for (const step of MIGRATIONS.slice(0, version)) db.exec(step);
  db.pragma(`user_version = ${version}`);
  fill(db);
  db.close();
}

describe('the migration to 1.2 (kinds and reasons of changes)', () => {
  it('keeps the history of 1.1: each change a set, without a reason', async () => {
    databaseAt(3, (db) => {
      db.exec(`INSERT INTO pets (id, name, status, quantity, version) VALUES (1, 'Rex', 'available', 4, 2)`);
      db.exec(`INSERT INTO stock_changes (pet_id, before_quantity, before_status, after_quantity, after_status, actor, at_ms)
               VALUES (1, 9, 'available', 4, 'available', 'key_a', 1000)`);
    });
    const storage = openSqliteStorage({ path: temp.path });
    try {
      expect(await storage.changes.history(petId(1n), { limit: 10 })).toEqual([
        {
          id: 1n,
          kind: 'set',
          before: { petId: 1n, quantity: 9, status: 'available' },
          after: { petId: 1n, quantity: 4, status: 'available' },
          actor: 'key_a',
          atMs: 1000,
          reason: null,
        },
      ]);
    } finally {
      await storage.close();
    }
  });
});
