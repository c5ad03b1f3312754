/**
 * How long SQLite's step 10 (the list filters' three indexes on `pets`) takes when a store of N pets is
 * upgraded: the store is made at the newest schema, taken back to step 9 (its indexes dropped), and
 * opened again, which migrates it; the open is timed, beside an open of the same file already migrated.
 *
 * Usage: node --import tsx bench/filter-index-migration.ts [pets=1000000]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteStorage } from '../src/adapters/sqlite/sqlite-storage.js';
import { preparePetstore } from './petstore.js';

const PETS = Number(process.argv[2] ?? '1000000');
const dir = await mkdtemp(join(tmpdir(), 'petstore-migration-'));
try {
  const path = join(dir, 'store.db');
  await preparePetstore(path, PETS);
  const db = new Database(path);
  db.exec('DROP INDEX pets_by_status; DROP INDEX pets_by_spare; DROP INDEX pets_by_status_spare;');
  db.pragma('user_version = 9');
  db.close();
  const timedOpen = async (): Promise<number> => {
    const started = performance.now();
    const storage = openSqliteStorage({ path });
    const ms = performance.now() - started;
    await storage.close();
    return ms;
  };
  const migrating = await timedOpen();
  const migrated = await timedOpen();
  process.stdout.write(
    `${PETS} pets: open with step 10 ${migrating.toFixed(0)} ms; open of the migrated file ${migrated.toFixed(0)} ms\n`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
