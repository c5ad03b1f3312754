import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { tempDatabase } from '../sqlite/temp-database.js';
import { describeApiKeyStoreContract } from './api-key-store.contract.js';
import { describeInventoryRepositoryContract } from './inventory-repository.contract.js';
import { describeOrderBookContract } from './order-book.contract.js';
import { describePetCatalogContract } from './pet-catalog.contract.js';
import type { MakeStorage } from './storage-fixture.js';

// A real file per fixture, so the suites run through WAL, fsync and the group commit as a server does.
const makeSqlite: MakeStorage = async () => {
  const temp = await tempDatabase();
  const storage = openSqliteStorage({ path: temp.path });
  return {
    inventory: storage.inventory,
    changes: storage.changes,
    pets: storage.pets,
    orders: storage.orders,
    keys: storage.keys,
    close: async () => {
      storage.close();
      await temp.remove();
    },
  };
};

describeInventoryRepositoryContract('sqlite', makeSqlite);
describePetCatalogContract('sqlite', makeSqlite);
describeOrderBookContract('sqlite', makeSqlite);
describeApiKeyStoreContract('sqlite', makeSqlite);
