import { ContainerModule } from 'inversify';
import { CachedApiKeyStore } from '../adapters/shared/cached-api-key-store.js';
import { openSqliteStorage, type SqliteStorage } from '../adapters/sqlite/sqlite-storage.js';
import type { Config } from './config.js';
import { bindInstrumentedPorts } from './instrumentation.js';
import { bindPart } from './lifecycle.js';
import { bindResolved, TOKENS, token } from './tokens.js';

/** The SQLite storage itself, for what needs more of the file than the ports (the limiter's snapshot). */
export const SQLITE = token<SqliteStorage>('SqliteStorage');

/**
 * Storage in one SQLite file (PETSTORE_DB), opened and migrated as the container makes it: every storage
 * port shares one connection, and stock writes run where `writer` says (see SqliteStorageOptions): in a
 * worker thread for the server, inline for a one-shot command. The file is a part of the lifecycle: its
 * stop commits the pending writes, ends the thread and closes the file, after every part that uses it.
 */
export const sqliteStorageModule = (config: Config, writer: 'inline' | 'worker') =>
  new ContainerModule((options) => {
    bindPart(
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
      (storage) => ({
        name: 'sqlite',
        stop: () => storage.close(),
        // Critical: an instance whose file cannot take a write leaves the rotation until one succeeds again.
        health: { healthy: () => storage.healthy(), critical: true },
      }),
    );
    // What the core gets: the store's ports, timed when metrics are on and a span a call when tracing
    // runs. Every request looks its key up: the cache in front of the keys spares a read each, and a key
    // revoked through another process (the admin CLI) is seen within PETSTORE_KEY_CACHE_MS.
    bindInstrumentedPorts(
      options,
      SQLITE,
      (keys, clock) => new CachedApiKeyStore(keys, clock, { ttlMs: config.keyCacheMs }),
    );
    bindResolved(options, TOKENS.storageIsEmpty, [SQLITE], (s) => () => s.isEmpty());
  });
