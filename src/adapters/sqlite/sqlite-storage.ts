import type { ApiKeyStore } from '../../application/ports/api-key-store.js';
import type { InventoryRepository } from '../../application/ports/inventory-repository.js';
import type { OrderBook } from '../../application/ports/order-book.js';
import type { PetCatalog } from '../../application/ports/pet-catalog.js';
import type { StockChangeLog } from '../../application/ports/stock-change-log.js';
import { openDatabase } from './open-database.js';
import { SqliteApiKeyStore } from './sqlite-api-key-store.js';
import { SqliteInventoryRepository } from './sqlite-inventory-repository.js';
import { SqliteLimiterSnapshot } from './sqlite-limiter-snapshot.js';
import { SqliteOrderBook } from './sqlite-order-book.js';
import { SqlitePetCatalog } from './sqlite-pet-catalog.js';
import { SqliteStockChangeLog } from './sqlite-stock-change-log.js';
import { StoreRevision } from './store-revision.js';

/** How to open the database file. */
export interface SqliteStorageOptions {
  /** The database file; missing folders are created. */
  readonly path: string;
  /**
   * FULL (the default) makes a committed change survive a power loss; NORMAL in WAL mode may lose the
   * last commits on power loss (never on a process crash) and commits faster.
   */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /** How long a write waits for another connection's lock before failing with SQLITE_BUSY. */
  readonly busyTimeoutMs?: number;
  /** The setting the path came from (e.g. PETSTORE_DB), named in every error about the file. */
  readonly setting?: string;
  /** Told the number of stock updates each group commit carried, once committed (for metrics). */
  readonly onGroupCommit?: (updates: number) => void;
}

/** Every storage port over one SQLite file, sharing one connection. */
export interface SqliteStorage {
  readonly inventory: InventoryRepository;
  readonly changes: StockChangeLog;
  readonly pets: PetCatalog;
  readonly orders: OrderBook;
  readonly keys: ApiKeyStore;
  /** Where the in-process rate limiter keeps its state across a graceful restart. */
  readonly limiterSnapshot: SqliteLimiterSnapshot;
  /** True when the store holds no pet, no order and no key: a development start may seed it. */
  isEmpty(): boolean;
  /** Commits the updates still waiting for their group commit, then closes the file. */
  close(): void;
}

const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens (or creates) the database at `options.path`: WAL, so readers never wait for the writer and
 * several processes can share the file; `synchronous` FULL unless told otherwise; a busy timeout, so a
 * write waits for another process's transaction instead of failing; foreign keys enforced. Brings the
 * schema up to date, and throws on a database made by a newer release, or on a file it cannot create,
 * read or write (naming the file).
 */
export function openSqliteStorage(options: SqliteStorageOptions): SqliteStorage {
  const synchronous = options.synchronous ?? 'FULL';
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new RangeError(`busyTimeoutMs ${busyTimeoutMs} is not a whole number of milliseconds`);
  }
  const db = openDatabase({ path: options.path, synchronous, busyTimeoutMs, setting: options.setting });

  // One revision for the pets table: stock updates and imports both move the list it stands for.
  const petsRevision = new StoreRevision(db);
  const inventory = new SqliteInventoryRepository(db, petsRevision, options.onGroupCommit);
  const isEmpty = db.prepare<[], { readonly empty: bigint }>(
    `SELECT NOT EXISTS (SELECT 1 FROM pets) AND NOT EXISTS (SELECT 1 FROM orders)
       AND NOT EXISTS (SELECT 1 FROM api_keys) AS empty`,
  );
  return {
    inventory,
    changes: new SqliteStockChangeLog(db),
    pets: new SqlitePetCatalog(db, petsRevision),
    orders: new SqliteOrderBook(db),
    keys: new SqliteApiKeyStore(db),
    limiterSnapshot: new SqliteLimiterSnapshot(db),
    isEmpty: () => isEmpty.get()?.empty === 1n,
    close: () => {
      if (!db.open) return;
      inventory.flush();
      db.close();
    },
  };
}
