import { createMemoryStorage } from '../adapters/memory/memory-adapters.js';
import { requirePeers } from '../adapters/shared/peer-packages.js';
import type { Config } from './config.js';
import type { Store, StoreDeps } from './part-deps.js';

/** Which store: in process memory (tests, nothing survives), or the configured one with SQLite's writer. */
export type StoreChoice = 'memory' | { readonly sqliteWriter: 'inline' | 'worker' };

/**
 * The one place that chooses the store: memory when asked, else PostgreSQL when DATABASE_URL is set,
 * else the SQLite file, whose stock writes run where `sqliteWriter` says: in a worker thread for the
 * server, inline for a one-shot command. Opened (and migrated) here, closed by the lifecycle. Only the
 * chosen store's module is imported, after its driver is found: a service on SQLite needs no pg.
 */
export async function openStore(config: Config, choice: StoreChoice, deps: StoreDeps): Promise<Store> {
  // Memory holds nothing open, so it is no part of the lifecycle.
  if (choice === 'memory') {
    const storage = createMemoryStorage();
    return { ports: storage, isEmpty: storage.isEmpty };
  }
  const { databaseUrl } = config;
  if (databaseUrl !== undefined) {
    await requirePeers('DATABASE_URL (PostgreSQL)', ['pg']);
    const { openPostgresStore } = await import('./postgres-store.js');
    return openPostgresStore({ ...config, databaseUrl }, deps);
  }
  await requirePeers('the SQLite store (PETSTORE_DB)', ['better-sqlite3']);
  const { openSqliteStore } = await import('./sqlite-store.js');
  return openSqliteStore(config, choice.sqliteWriter, deps);
}
