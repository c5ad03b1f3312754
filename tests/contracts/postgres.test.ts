import { afterEach, beforeEach, describe, it } from 'vitest';
import { describeStorageContract, type MakeStorage, ManualClock } from '../../src/testing/index.js';
import { hasPostgresServer, usePostgresServer } from '../postgres/postgres-fixture.js';

// One real server for the file, a new database for each test: the suites run through the pool, the
// transactions and the server's own constraints, as a deployment does.
describe.skipIf(!hasPostgresServer)('over PostgreSQL', () => {
  const postgres = usePostgresServer();
  const makePostgres: MakeStorage = async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0));
    // The suites check what the store does, not how soon a loaded machine answers: 100 writes of one
    // pet at once queue for a pool of 10, and with the other test files running beside them that wait
    // once passed the default 2 s (a 503, not a lost write).
    const storage = await postgres.storage({ clock, connectTimeoutMs: 10_000 });
    return {
      clock,
      inventory: storage.inventory,
      changes: storage.changes,
      feed: storage.feed,
      webhooks: storage.webhooks,
      pets: storage.pets,
      orders: storage.orders,
      keys: storage.keys,
      close: () => storage.close(),
    };
  };

  describeStorageContract('postgres', makePostgres, { describe, it, beforeEach, afterEach });
});
