import { CachedApiKeyStore } from '../adapters/api-keys/cached-api-key-store.js';
import { openSqliteStorage } from '../adapters/sqlite/sqlite-storage.js';
import type { Config } from './config.js';
import type { Store, StoreDeps } from './part-deps.js';

/**
 * Storage in one SQLite file (PETSTORE_DB), opened and migrated here: every storage port shares one
 * connection, and stock writes run where `writer` says (see SqliteStorageOptions): in a worker thread
 * for the server, inline for a one-shot command. The file is a part of the lifecycle: its stop commits
 * the pending writes, ends the thread and closes the file, after every part that uses it.
 */
export function openSqliteStore(config: Config, writer: 'inline' | 'worker', deps: StoreDeps): Store {
  const { logger, clock, lifecycle } = deps;
  const storage = openSqliteStorage({
    clock,
    path: config.dbPath,
    synchronous: config.synchronous,
    setting: 'PETSTORE_DB',
    writer,
    logger,
    onGroupCommit: (updates) => deps.onGroupCommit('sqlite', updates),
    onHealthChange: (healthy, cause) => {
      const database = `PETSTORE_DB=${config.dbPath}`;
      if (healthy) logger.info({ database }, 'sqlite written again; stock writes succeed');
      else logger.error({ database, err: cause }, 'sqlite cannot be written; stock writes answer 503');
    },
  });
  lifecycle.register({
    name: 'sqlite',
    stop: () => storage.close(),
    // Critical: an instance whose file cannot take a write leaves the rotation until one succeeds again.
    health: { healthy: () => storage.healthy(), critical: true },
  });
  // Every request looks its key up: the cache in front of the keys spares a read each, and a key
  // revoked through another process (the admin CLI) is seen within PETSTORE_KEY_CACHE_MS.
  const keys = new CachedApiKeyStore(storage.keys, clock, { ttlMs: config.keyCacheMs });
  return { ports: { ...storage, keys }, isEmpty: () => storage.isEmpty(), limiterSnapshot: storage.limiterSnapshot };
}
