import { CachedApiKeyStore } from '../adapters/api-keys/cached-api-key-store.js';
import { describeUrl, openPostgresStorage, type PostgresStorage } from '../adapters/postgres/postgres-storage.js';
import type { Config } from './config.js';
import type { Store, StoreDeps } from './part-deps.js';

/**
 * PostgreSQL (DATABASE_URL) for every storage port, opened and migrated here, as SQLite is. While the
 * server is unreachable, the requests that need it answer 503 and /readyz turns unready; each change is
 * logged once. The pool is a part of the lifecycle: its stop writes the queued writes and closes every
 * connection.
 */
export async function openPostgresStore(
  config: Config & { readonly databaseUrl: string },
  { logger, clock, lifecycle, onGroupCommit }: StoreDeps,
): Promise<Store> {
  const where = describeUrl(config.databaseUrl);
  const storage: PostgresStorage = await openPostgresStorage({
    url: config.databaseUrl,
    ...config.postgres,
    clock,
    onGroupCommit: (writes) => onGroupCommit('postgres', writes),
    onHealthChange: (healthy, cause) => {
      if (healthy) logger.info({ database: where }, 'postgres available again');
      else logger.warn({ database: where, err: cause }, 'postgres unavailable; requests that need it answer 503');
    },
  });
  lifecycle.register({
    name: 'postgres',
    stop: () => storage.close(),
    // Critical: without its store an instance can answer nothing useful, so it leaves the rotation.
    health: { healthy: () => storage.healthy(), critical: true },
  });
  // Every request looks its key up: the cache in front of the keys spares a read each, and a key
  // revoked through another instance or the admin CLI is refused within PETSTORE_KEY_CACHE_MS (at most 1 s).
  const keys = new CachedApiKeyStore(storage.keys, clock, { ttlMs: config.keyCacheMs });
  return { ports: { ...storage, keys }, isEmpty: () => storage.isEmpty() };
}
