import { MemoryRateLimiter } from '../adapters/memory/memory-rate-limiter.js';
import { requirePeers } from '../adapters/shared/peer-packages.js';
import type { RateLimiter } from '../application/ports/rate-limiter.js';
import type { Config } from './config.js';
import type { LimiterDeps, Store } from './part-deps.js';

/** Whether the configuration shares limits through Redis: one server (REDIS_URL) or a cluster (REDIS_CLUSTER_NODES). */
const usesRedis = (config: Config): boolean => config.redisUrl !== undefined || config.redisClusterNodes !== undefined;

/**
 * The one place that chooses the limiter: `in-process` alone for a one-shot command; otherwise Redis
 * when REDIS_URL or REDIS_CLUSTER_NODES is set. Without it, the in-process limiter outlives a graceful
 * restart through `snapshot` (the SQLite file's, for a served instance); over PostgreSQL it starts empty,
 * since instances that share a store share limits through Redis.
 */
export async function makeLimiter(
  config: Config,
  choice: 'configured' | 'in-process',
  snapshot: Store['limiterSnapshot'],
  deps: LimiterDeps,
): Promise<RateLimiter> {
  if (choice === 'configured' && usesRedis(config)) {
    await requirePeers(config.redisClusterNodes === undefined ? 'REDIS_URL' : 'REDIS_CLUSTER_NODES', ['ioredis']);
    const { redisLimiter } = await import('./redis-limiter.js');
    return redisLimiter(config, deps);
  }
  const { clock, banPolicy, instrumentation } = deps;
  const limiter = new MemoryRateLimiter(clock, { banPolicy });
  if (snapshot !== undefined) keepAcrossRestarts(limiter, snapshot, deps);
  return instrumentation.rateLimiter(instrumentation.limiter(limiter, 'memory'));
}

/**
 * Restores the in-process limiter from the last snapshot, and saves it when the service stops (its
 * part stops before the file closes). A crash saves nothing: the next start restores the snapshot of
 * the last graceful stop.
 */
function keepAcrossRestarts(
  limiter: MemoryRateLimiter,
  snapshot: NonNullable<Store['limiterSnapshot']>,
  { lifecycle, logger }: LimiterDeps,
): void {
  const { restored, skipped } = limiter.restore(snapshot.load());
  logger.info({ subjects: restored, unreadable: skipped }, 'rate limiter state restored');
  lifecycle.register({
    name: 'rate limiter snapshot',
    stop: () => {
      const subjects = snapshot.save(limiter.serialise());
      logger.info({ subjects }, 'rate limiter state saved');
    },
  });
}

/** What the start's `listening` line calls the limiter chosen by {@link makeLimiter}. */
export function limiterNameOf(config: Config): 'redis-cluster' | 'redis' | 'in-process' {
  if (config.redisClusterNodes !== undefined) return 'redis-cluster';
  if (usesRedis(config)) return 'redis';
  return 'in-process';
}
