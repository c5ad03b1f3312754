import { afterEach, beforeEach, describe, it } from 'vitest';
import { openSqliteStorage, type SqliteStorageOptions } from '../../src/adapters/sqlite/sqlite-storage.js';
import { tempDatabase } from '../sqlite/temp-database.js';
import { ManualClock } from '../support/manual-clock.js';
import { describeApiKeyStoreContract } from './api-key-store.contract.js';
import { describeInventoryRepositoryContract } from './inventory-repository.contract.js';
import { describeOrderBookContract } from './order-book.contract.js';
import { describePetCatalogContract } from './pet-catalog.contract.js';
import { describeReservationHoldsContract } from './reservation-holds.contract.js';
import { describeStockChangeFeedContract } from './stock-change-feed.contract.js';
import type { MakeStorage } from './storage-fixture.js';
import { describeWebhookStoreContract } from './webhook-store.contract.js';

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
  describeInventoryRepositoryContract(adapter, makeSqlite(writer));
  describePetCatalogContract(adapter, makeSqlite(writer));
  describeStockChangeFeedContract(adapter, makeSqlite(writer));
  describeWebhookStoreContract(adapter, makeSqlite(writer));
  describeOrderBookContract(adapter, makeSqlite(writer));
  describeApiKeyStoreContract(adapter, makeSqlite(writer));
  describeReservationHoldsContract(adapter, makeSqlite(writer), { describe, it, beforeEach, afterEach });
}
