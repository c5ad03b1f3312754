import { ContainerModule } from 'inversify';
import { CachedApiKeyStore } from '../adapters/shared/cached-api-key-store.js';
import { openSqliteStorage, type SqliteStorage } from '../adapters/sqlite/sqlite-storage.js';
import type { Config } from './config.js';
import { bindResolved, type Closeable, type HealthCheck, TOKENS, token } from './tokens.js';

/** The SQLite storage itself, for what needs more of the file than the ports (the limiter's snapshot). */
export const SQLITE = token<SqliteStorage>('SqliteStorage');

/**
 * Storage in one SQLite file (PETSTORE_DB): every storage port shares one connection, and stock writes
 * run where `writer` says (see SqliteStorageOptions): in a worker thread for the server, inline for a
 * one-shot command.
 */
export const sqliteStorageModule = (config: Config, writer: 'inline' | 'worker') =>
  new ContainerModule((options) => {
    bindResolved(
      options,
      SQLITE,
      [TOKENS.logger, TOKENS.instrumentation, TOKENS.clock],
      (logger, instrumentation, clock) =>
        openSqliteStorage({
          clock,
          path: config.dbPath,
          synchronous: config.synchronous,
          setting: 'PETSTORE_DB',
          writer,
          logger,
          onGroupCommit: (updates) => instrumentation.groupCommit(updates),
          onHealthChange: (healthy, cause) => {
            const database = `PETSTORE_DB=${config.dbPath}`;
            if (healthy) logger.info({ database }, 'sqlite written again; stock writes succeed');
            else logger.error({ database, err: cause }, 'sqlite cannot be written; stock writes answer 503');
          },
        }),
    );
    bindResolved(options, TOKENS.inventory, [SQLITE], (s) => s.inventory);
    bindResolved(options, TOKENS.changes, [SQLITE], (s) => s.changes);
    bindResolved(options, TOKENS.feed, [SQLITE], (s) => s.feed);
    bindResolved(options, TOKENS.webhooks, [SQLITE], (s) => s.webhooks);
    bindResolved(options, TOKENS.pets, [SQLITE], (s) => s.pets);
    bindResolved(options, TOKENS.orders, [SQLITE], (s) => s.orders);
    // Every request looks its key up: the cache spares a read each, and a revocation through another
    // process (the admin CLI) is seen within PETSTORE_KEY_CACHE_MS.
    bindResolved(
      options,
      TOKENS.keys,
      [SQLITE, TOKENS.clock],
      (s, clock) => new CachedApiKeyStore(s.keys, clock, { ttlMs: config.keyCacheMs }),
    );
    bindResolved(options, TOKENS.storageIsEmpty, [SQLITE], (s) => () => s.isEmpty());
    bindResolved(options, TOKENS.closeables, [SQLITE], (s): Closeable => ({ name: 'sqlite', close: () => s.close() }));
    // Critical: an instance whose file cannot take a write leaves the rotation until one succeeds again.
    bindResolved(
      options,
      TOKENS.healthChecks,
      [SQLITE],
      (s): HealthCheck => ({ name: 'sqlite', healthy: () => s.healthy(), critical: true }),
    );
  });
