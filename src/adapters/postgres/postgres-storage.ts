import type { Clock } from '../../application/ports/clock.js';
import type { StoragePorts } from '../../application/ports/storage-ports.js';
import { wallClock } from '../web/wall-clock.js';
import { describeUrl } from './database-location.js';
import { migratePostgres } from './migrations.js';
import { PostgresApiKeyStore } from './postgres-api-key-store.js';
import { PostgresDatabase, type PostgresOptions } from './postgres-database.js';
import { PostgresInventoryRepository } from './postgres-inventory-repository.js';
import { PostgresOrderBook } from './postgres-order-book.js';
import { PostgresPetCatalog } from './postgres-pet-catalog.js';
import { PostgresStockChangeFeed } from './postgres-stock-change-feed.js';
import { PostgresStockChangeLog } from './postgres-stock-change-log.js';
import { PostgresWebhookStore } from './postgres-webhook-store.js';

/** Every storage port over one PostgreSQL database, sharing one pool of connections. */
export interface PostgresStorage extends StoragePorts {
  /** True when the store holds no pet, no order and no key: a development start may seed it. */
  isEmpty(): Promise<boolean>;
  /** Whether the server answered the last statement or the last probe (once a second). */
  healthy(): boolean;
  /** Waits for the statements under way, then closes every connection. */
  close(): Promise<void>;
}

export { describeUrl } from './database-location.js';

/** How often the health probe asks the server while nothing else does. */
const PROBE_INTERVAL_MS = 1_000;

/**
 * Connects to the database at `options.url`, brings its schema up to date (under an advisory lock, so
 * instances starting at once migrate once), and throws on a schema made by a newer release or when the
 * server cannot be reached.
 */
export async function openPostgresStorage(
  options: PostgresOptions & { readonly clock?: Clock },
): Promise<PostgresStorage> {
  const db = new PostgresDatabase(options);
  try {
    await migratePostgres(db, describeUrl(options.url));
  } catch (error) {
    await db.close();
    throw error;
  }
  db.watch(PROBE_INTERVAL_MS);
  const inventory = new PostgresInventoryRepository(db, options.clock ?? wallClock, {
    ...(options.writeLanes === undefined ? {} : { lanes: options.writeLanes }),
    onCommitted: options.onGroupCommit,
  });
  return {
    inventory,
    changes: new PostgresStockChangeLog(db),
    feed: new PostgresStockChangeFeed(db),
    webhooks: new PostgresWebhookStore(db),
    pets: new PostgresPetCatalog(db),
    orders: new PostgresOrderBook(db),
    keys: new PostgresApiKeyStore(db),
    isEmpty: async () => {
      const [[empty] = [false]] = await db.rows<[boolean]>(
        `SELECT NOT EXISTS (SELECT 1 FROM pets) AND NOT EXISTS (SELECT 1 FROM orders)
           AND NOT EXISTS (SELECT 1 FROM api_keys)`,
      );
      return empty;
    },
    healthy: () => db.healthy(),
    close: async () => {
      // A write queued for its group is written before the connections close.
      await inventory.drained();
      await db.close();
    },
  };
}
