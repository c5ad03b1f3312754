import type { Cluster, Redis } from 'ioredis';
import { FailoverRateLimiter } from '../adapters/failover/failover-rate-limiter.js';
import { UnavailableRateLimiter } from '../adapters/failover/unavailable-rate-limiter.js';
import { MemoryRateLimiter } from '../adapters/memory/memory-rate-limiter.js';
import { createRedisClient, createRedisClusterClient, whenReady } from '../adapters/redis/redis-client.js';
import { RedisRateLimiter } from '../adapters/redis/redis-rate-limiter.js';
import type { OutageLogger } from '../application/ports/outage-logger.js';
import type { RateLimiter } from '../application/ports/rate-limiter.js';
import type { Config } from './config.js';
import type { LimiterDeps } from './part-deps.js';

/** The client of the configured Redis: a Cluster client for REDIS_CLUSTER_NODES, else one for REDIS_URL. */
function redisClientOf(config: Config, logger: OutageLogger): Redis | Cluster {
  const options = { commandTimeoutMs: config.redisCommandTimeoutMs, logger };
  if (config.redisClusterNodes !== undefined) return createRedisClusterClient(config.redisClusterNodes, options);
  if (config.redisUrl !== undefined) return createRedisClient(config.redisUrl, options);
  throw new Error('the Redis limiter needs REDIS_URL or REDIS_CLUSTER_NODES');
}

/**
 * The limiter shared by every process through Redis (REDIS_URL or REDIS_CLUSTER_NODES), behind a circuit breaker: while Redis
 * is unreachable, decisions come from an in-process limiter (fail open, the default) or the request
 * is refused with 503 (fail closed). Fail-closed also takes the process out of /readyz while Redis is
 * down; fail-open keeps serving, so a Redis outage never takes every instance out at once. The client
 * is a part of the lifecycle: it connects as it is made, and its stop quits it.
 */
export function redisLimiter(config: Config, deps: LimiterDeps): RateLimiter {
  const { clock, banPolicy, logger, instrumentation } = deps;
  const client = redisClientOf(config, logger);
  const primary = instrumentation.limiter(new RedisRateLimiter(client, clock, { banPolicy }), 'redis');
  // Fail-closed has nothing to count: its fallback never decides.
  const fallback =
    config.rateLimitFailure === 'closed'
      ? new UnavailableRateLimiter()
      : instrumentation.limiter(new MemoryRateLimiter(clock, { banPolicy }), 'fallback');
  const failover = new FailoverRateLimiter(primary, fallback, clock, { logger });
  deps.lifecycle.register({
    name: 'redis',
    stop: async () => {
      await client.quit().catch(() => client.disconnect());
    },
    health: {
      // Connected, and no recent command failed: the circuit alone looks healthy before the first call.
      healthy: () => client.status === 'ready' && failover.healthy(),
      // Fail-open serves through an outage, so it must not take every instance out of rotation at once.
      critical: config.rateLimitFailure === 'closed',
      whenUp: (timeoutMs) =>
        whenReady(client, timeoutMs).then(
          () => true,
          () => false,
        ),
    },
  });
  instrumentation.failover(() => failover.status());
  return instrumentation.rateLimiter(failover);
}
