import type { Clock } from '../../application/ports/clock.js';
import type { StoragePorts } from '../../application/ports/storage-ports.js';
import { wallClock } from '../web/wall-clock.js';
import { type CommandQueue, InlineCommandQueue } from './command-queue.js';
import { fileNamed, type OpenDatabaseOptions, openDatabase } from './open-database.js';
import { SqliteApiKeyStore } from './sqlite-api-key-store.js';
import { SqliteInventoryRepository } from './sqlite-inventory-repository.js';
import { SqliteLimiterSnapshot } from './sqlite-limiter-snapshot.js';
import { SqliteOrderBook } from './sqlite-order-book.js';
import { SqlitePetCatalog } from './sqlite-pet-catalog.js';
import { SqliteStockChangeFeed } from './sqlite-stock-change-feed.js';
import { SqliteStockChangeLog } from './sqlite-stock-change-log.js';
import { SqliteWebhookStore } from './sqlite-webhook-store.js';
import { StoreRevision } from './store-revision.js';
import { WatchedCommandQueue, type WriteHealthListener } from './write-health.js';
import { type WriterThreadLogger, WriterThreadQueue } from './writer-thread-queue.js';

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
  /**
   * Where stock writes run. `inline` (the default): on this thread's connection, whose event loop then
   * waits for each batch's commit (and, with FULL, its fsync). `worker`: on a connection of their own in
   * a worker thread, so this thread's event loop never waits for the disk; a write still settles only
   * once its batch is committed. The thread keeps no process alive while no write is pending.
   */
  readonly writer?: 'inline' | 'worker';
  /** Told when the writer thread stops unexpectedly; the pending writes fail, the next one starts it again. */
  readonly logger?: WriterThreadLogger;
  /**
   * Told the number of stock updates each group commit carried, once committed (for metrics), on this
   * thread whichever writer committed it.
   */
  readonly onGroupCommit?: (updates: number) => void;
  /**
   * Told when stock writes start failing because the file cannot be written (disk full, read-only, I/O
   * error, locked past the busy timeout), with the error naming the file, and when one succeeds again.
   */
  readonly onHealthChange?: WriteHealthListener;
  /** The time what is reserved is read at; the machine's clock when absent. */
  readonly clock?: Clock;
}

/** Every storage port over one SQLite file, sharing one connection (the writer thread has its own). */
export interface SqliteStorage extends StoragePorts {
  /** The InventoryRepository, which lists by columns too (`listColumns`). */
  readonly inventory: SqliteInventoryRepository;
  /** Where the in-process rate limiter keeps its state across a graceful restart. */
  readonly limiterSnapshot: SqliteLimiterSnapshot;
  /** True when the store holds no pet, no order and no key: a development start may seed it. */
  isEmpty(): boolean;
  /** False from a stock write that failed for want of the file until one succeeds again. */
  healthy(): boolean;
  /**
   * Commits the stock writes still pending, stops the writer thread if there is one, then closes the
   * file; resolves once all of it is done. Calling it again returns the same promise.
   */
  close(): Promise<void>;
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
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new RangeError(`busyTimeoutMs ${busyTimeoutMs} is not a whole number of milliseconds`);
  }
  const settings: OpenDatabaseOptions = {
    path: options.path,
    synchronous: options.synchronous ?? 'FULL',
    busyTimeoutMs,
    setting: options.setting,
  };
  const db = openDatabase(settings);

  // One revision for the pets table: stock updates and imports both move the list it stands for.
  const petsRevision = new StoreRevision(db);
  // The thread opens its own connection after the migration above, so it never sees an old schema.
  const queue: CommandQueue =
    options.writer === 'worker'
      ? new WriterThreadQueue(settings, {
          logger: options.logger,
          onGroupCommit: options.onGroupCommit,
          onCommitted: () => petsRevision.sawCommit(),
        })
      : new InlineCommandQueue(db, { onWrite: () => petsRevision.bump(), onGroupCommit: options.onGroupCommit });
  const writes = new WatchedCommandQueue(queue, fileNamed(settings), options.onHealthChange);
  const isEmpty = db.prepare<[], { readonly empty: bigint }>(
    `SELECT NOT EXISTS (SELECT 1 FROM pets) AND NOT EXISTS (SELECT 1 FROM orders)
       AND NOT EXISTS (SELECT 1 FROM api_keys) AS empty`,
  );
  let closed: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    try {
      await writes.close();
    } finally {
      db.close();
    }
  };
  return {
    inventory: new SqliteInventoryRepository(db, petsRevision, writes, options.clock ?? wallClock),
    changes: new SqliteStockChangeLog(db),
    feed: new SqliteStockChangeFeed(db),
    webhooks: new SqliteWebhookStore(db),
    pets: new SqlitePetCatalog(db, petsRevision),
    orders: new SqliteOrderBook(db),
    keys: new SqliteApiKeyStore(db),
    limiterSnapshot: new SqliteLimiterSnapshot(db),
    isEmpty: () => isEmpty.get()?.empty === 1n,
    healthy: () => writes.healthy(),
    close: () => {
      closed ??= close();
      return closed;
    },
  };
}
