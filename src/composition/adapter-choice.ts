import type { ContainerModule } from 'inversify';
import { requirePeers } from '../adapters/shared/peer-packages.js';
import type { Config } from './config.js';

/** Whether the configuration shares limits through Redis: one server (REDIS_URL) or a cluster (REDIS_CLUSTER_NODES). */
export const usesRedis = (config: Config): boolean =>
  config.redisUrl !== undefined || config.redisClusterNodes !== undefined;

/**
 * The one place that chooses the store: PostgreSQL when DATABASE_URL is set, else the SQLite file, whose
 * stock writes run where `sqliteWriter` says: in a worker thread for the server, inline for a one-shot
 * command. Either is opened (and migrated) as the container makes it, and closed by the lifecycle. Only
 * the chosen store's module is imported, after its driver is found: a service on SQLite needs no pg.
 */
export async function storageModuleOf(config: Config, sqliteWriter: 'inline' | 'worker'): Promise<ContainerModule> {
  const { databaseUrl } = config;
  if (databaseUrl !== undefined) {
    await requirePeers('DATABASE_URL (PostgreSQL)', ['pg']);
    const { postgresStorageModule } = await import('./postgres-module.js');
    return postgresStorageModule({ ...config, databaseUrl });
  }
  await requirePeers('the SQLite store (PETSTORE_DB)', ['better-sqlite3']);
  const { sqliteStorageModule } = await import('./sqlite-module.js');
  return sqliteStorageModule(config, sqliteWriter);
}

/**
 * The limiter's modules: Redis when REDIS_URL or REDIS_CLUSTER_NODES is set. Without it, the in-process limiter outlives a
 * graceful restart through the SQLite file; over PostgreSQL it starts empty (the container's default),
 * since instances that share a store share limits through Redis.
 */
export async function limiterModulesOf(config: Config): Promise<readonly ContainerModule[]> {
  if (usesRedis(config)) {
    await requirePeers(config.redisClusterNodes === undefined ? 'REDIS_URL' : 'REDIS_CLUSTER_NODES', ['ioredis']);
    const { redisLimiterModule } = await import('./redis-module.js');
    return [redisLimiterModule(config)];
  }
  if (config.databaseUrl === undefined) return [(await import('./limiter-snapshot-module.js')).limiterSnapshotModule()];
  return [];
}

/** What the start's `listening` line calls the limiter chosen by {@link limiterModulesOf}. */
export function limiterNameOf(config: Config): 'redis-cluster' | 'redis' | 'in-process' {
  if (config.redisClusterNodes !== undefined) return 'redis-cluster';
  if (usesRedis(config)) return 'redis';
  return 'in-process';
}
