import { ContainerModule } from 'inversify';
import { describeUrl, openPostgresStorage, type PostgresStorage } from '../adapters/postgres/postgres-storage.js';
import { CachedApiKeyStore } from '../adapters/shared/cached-api-key-store.js';
import type { Config } from './config.js';
import { bindInstrumentedPorts } from './instrumentation.js';
import { bindPart } from './lifecycle.js';
import { bindResolved, TOKENS, token } from './tokens.js';

const POSTGRES = token<PostgresStorage>('PostgresStorage');

/**
 * PostgreSQL (DATABASE_URL) for every storage port, opened and migrated as the container makes it, as
 * SQLite is: opening is asynchronous, so the graph is resolved with `resolveAsync`. While the server is
 * unreachable, the requests that need it answer 503 and /readyz turns unready; each change is logged
 * once. The pool is a part of the lifecycle: its stop writes the queued writes and closes every connection.
 */
export const postgresStorageModule = (config: Config & { readonly databaseUrl: string }) =>
  new ContainerModule((options) => {
    bindPart(
      options,
      POSTGRES,
      [TOKENS.logger, TOKENS.clock],
      (logger, clock) => {
        const where = describeUrl(config.databaseUrl);
        return openPostgresStorage({
          url: config.databaseUrl,
          ...config.postgres,
          clock,
          onHealthChange: (healthy, cause) => {
            if (healthy) logger.info({ database: where }, 'postgres available again');
            else logger.warn({ database: where, err: cause }, 'postgres unavailable; requests that need it answer 503');
          },
        });
      },
      (storage) => ({
        name: 'postgres',
        stop: () => storage.close(),
        // Critical: without its store an instance can answer nothing useful, so it leaves the rotation.
        health: { healthy: () => storage.healthy(), critical: true },
      }),
    );
    // What the core gets: the store's ports, timed when metrics are on and a span a call when tracing
    // runs. Every request looks its key up: the cache in front of the keys spares a read each, and a key
    // revoked through another instance or the admin CLI is refused within PETSTORE_KEY_CACHE_MS (at most 1 s).
    bindInstrumentedPorts(
      options,
      POSTGRES,
      (keys, clock) => new CachedApiKeyStore(keys, clock, { ttlMs: config.keyCacheMs }),
    );
    bindResolved(options, TOKENS.storageIsEmpty, [POSTGRES], (s) => () => s.isEmpty());
  });
