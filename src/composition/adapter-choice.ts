import type { ContainerModule } from 'inversify';
import type { Config } from './config.js';
import { limiterSnapshotModule } from './limiter-snapshot-module.js';
import { postgresStorageModule } from './postgres-module.js';
import { redisLimiterModule, usesRedis } from './redis-module.js';
import { sqliteStorageModule } from './sqlite-module.js';

/**
 * The one place that chooses the store: PostgreSQL when DATABASE_URL is set, else the SQLite file, whose
 * stock writes run where `sqliteWriter` says: in a worker thread for the server, inline for a one-shot
 * command. Either is opened (and migrated) as the container makes it, and closed by the lifecycle.
 */
export function storageModuleOf(config: Config, sqliteWriter: 'inline' | 'worker'): ContainerModule {
  const { databaseUrl } = config;
  if (databaseUrl !== undefined) return postgresStorageModule({ ...config, databaseUrl });
  return sqliteStorageModule(config, sqliteWriter);
}

/**
 * The limiter's modules: Redis when REDIS_URL or REDIS_CLUSTER_NODES is set. Without it, the in-process limiter outlives a
 * graceful restart through the SQLite file; over PostgreSQL it starts empty (the container's default),
 * since instances that share a store share limits through Redis.
 */
export function limiterModulesOf(config: Config): readonly ContainerModule[] {
  if (usesRedis(config)) return [redisLimiterModule(config)];
  if (config.databaseUrl === undefined) return [limiterSnapshotModule()];
  return [];
}

/** What the start's `listening` line calls the limiter chosen by {@link limiterModulesOf}. */
export function limiterNameOf(config: Config): 'redis-cluster' | 'redis' | 'in-process' {
  if (config.redisClusterNodes !== undefined) return 'redis-cluster';
  if (usesRedis(config)) return 'redis';
  return 'in-process';
}
