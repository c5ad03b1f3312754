import { ContainerModule } from 'inversify';
import type { Cluster, Redis } from 'ioredis';
import { FailoverRateLimiter } from '../adapters/failover/failover-rate-limiter.js';
import { UnavailableRateLimiter } from '../adapters/failover/unavailable-rate-limiter.js';
import { MemoryRateLimiter } from '../adapters/memory/memory-rate-limiter.js';
import { createRedisClient, createRedisClusterClient, whenReady } from '../adapters/redis/redis-client.js';
import { RedisRateLimiter } from '../adapters/redis/redis-rate-limiter.js';
import type { OutageLogger } from '../application/ports/outage-logger.js';
import type { Config } from './config.js';
import { bindPart } from './lifecycle.js';
import { bindResolved, TOKENS, token } from './tokens.js';

/** The client of Redis, and the failover limiter over it: made, health-checked and stopped together. */
const REDIS_LIMITER = token<{ readonly client: Redis | Cluster; readonly failover: FailoverRateLimiter }>(
  'RedisLimiter',
);

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
export const redisLimiterModule = (config: Config) =>
  new ContainerModule((options) => {
    bindPart(
      options,
      REDIS_LIMITER,
      [TOKENS.clock, TOKENS.banPolicy, TOKENS.logger, TOKENS.instrumentation],
      (clock, banPolicy, logger, instrumentation) => {
        const client = redisClientOf(config, logger);
        const primary = instrumentation.limiter(new RedisRateLimiter(client, clock, { banPolicy }), 'redis');
        // Fail-closed has nothing to count: its fallback never decides.
        const fallback =
          config.rateLimitFailure === 'closed'
            ? new UnavailableRateLimiter()
            : instrumentation.limiter(new MemoryRateLimiter(clock, { banPolicy }), 'fallback');
        return { client, failover: new FailoverRateLimiter(primary, fallback, clock, { logger }) };
      },
      ({ client, failover }) => ({
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
      }),
    );
    bindResolved(options, TOKENS.limiter, [REDIS_LIMITER, TOKENS.instrumentation], ({ failover }, instrumentation) => {
      instrumentation.failover(() => failover.status());
      return instrumentation.rateLimiter(failover);
    });
  });
