import { ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import { describeUrl, openPostgresStorage } from '../adapters/postgres/postgres-storage.js';
import { CachedApiKeyStore } from '../adapters/shared/cached-api-key-store.js';
import type { Config } from './config.js';
import { bindResolved, type Closeable, type HealthCheck, id, TOKENS } from './tokens.js';

/**
 * Opens PostgreSQL (DATABASE_URL) for every storage port, migrating it first, and resolves to the
 * module that binds them. Opening is asynchronous, so it happens before the container is built. While
 * the server is unreachable, the requests that need it answer 503 and /readyz turns unready; each
 * change is logged once.
 */
export async function postgresStorageModule(
  config: Config & { readonly databaseUrl: string },
  logger: Logger,
): Promise<ContainerModule> {
  const where = describeUrl(config.databaseUrl);
  const storage = await openPostgresStorage({
    url: config.databaseUrl,
    ...config.postgres,
    onHealthChange: (healthy, cause) => {
      if (healthy) logger.info({ database: where }, 'postgres available again');
      else logger.warn({ database: where, err: cause }, 'postgres unavailable; requests that need it answer 503');
    },
  });
  return new ContainerModule((options) => {
    const { bind } = options;
    bind(id(TOKENS.inventory)).toConstantValue(storage.inventory);
    bind(id(TOKENS.changes)).toConstantValue(storage.changes);
    bind(id(TOKENS.feed)).toConstantValue(storage.feed);
    bind(id(TOKENS.webhooks)).toConstantValue(storage.webhooks);
    bind(id(TOKENS.pets)).toConstantValue(storage.pets);
    bind(id(TOKENS.orders)).toConstantValue(storage.orders);
    // The store reads every key from PostgreSQL; the cache spares a read per request, and a key revoked
    // through another instance or the admin CLI is refused within PETSTORE_KEY_CACHE_MS (at most 1 s).
    bindResolved(
      options,
      TOKENS.keys,
      [TOKENS.clock],
      (clock) => new CachedApiKeyStore(storage.keys, clock, { ttlMs: config.keyCacheMs }),
    );
    bind(id(TOKENS.storageIsEmpty)).toConstantValue(() => storage.isEmpty());
    bind(id(TOKENS.closeables)).toConstantValue({ name: 'postgres', close: () => storage.close() } satisfies Closeable);
    // Critical: without its store an instance can answer nothing useful, so it leaves the rotation.
    bind(id(TOKENS.healthChecks)).toConstantValue({
      name: 'postgres',
      healthy: () => storage.healthy(),
      critical: true,
    } satisfies HealthCheck);
  });
}
