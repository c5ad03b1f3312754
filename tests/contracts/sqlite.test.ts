import { afterEach, beforeEach, describe, it } from 'vitest';
import { openSqliteStorage, type SqliteStorageOptions } from '../../src/adapters/sqlite/sqlite-storage.js';
import { describeStorageContract, type MakeStorage, ManualClock } from '../../src/testing/index.js';
import { tempDatabase } from '../../support/temp-database.js';

// A real file per fixture, so the suites run through WAL, fsync and the group commit as a server does.
const makeSqlite =
  (writer: SqliteStorageOptions['writer']): MakeStorage =>
  async () => {
    const temp = await tempDatabase();
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0));
    const storage = openSqliteStorage({ path: temp.path, writer, clock });
    return {
      clock,
      inventory: storage.inventory,
      changes: storage.changes,
      feed: storage.feed,
      webhooks: storage.webhooks,
      pets: storage.pets,
      orders: storage.orders,
      keys: storage.keys,
      close: async () => {
        await storage.close();
        await temp.remove();
      },
    };
  };

for (const [adapter, writer] of [
  ['sqlite', 'inline'],
  ['sqlite worker', 'worker'],
] as const) {
  describeStorageContract(adapter, makeSqlite(writer), { describe, it, beforeEach, afterEach });
}
