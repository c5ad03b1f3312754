import { ContainerModule } from 'inversify';
import type { Redis } from 'ioredis';
import { MemoryRateLimiter } from '../adapters/memory/memory-rate-limiter.js';
import { FailoverRateLimiter } from '../adapters/redis/failover-rate-limiter.js';
import { createRedisClient } from '../adapters/redis/redis-client.js';
import { RedisRateLimiter } from '../adapters/redis/redis-rate-limiter.js';
import type { Config } from './config.js';
import { bindResolved, type Closeable, type HealthCheck, TOKENS, token } from './tokens.js';

const REDIS = token<Redis>('Redis');
const FAILOVER = token<FailoverRateLimiter>('FailoverRateLimiter');

/**
 * The limiter shared by every process through Redis (REDIS_URL), behind a circuit breaker: while Redis
 * is unreachable, decisions come from an in-process limiter (fail open, the default) or the request
 * is refused with 503 (fail closed). Fail-closed also takes the process out of /readyz while Redis is
 * down; fail-open keeps serving, so a Redis outage never takes every instance out at once.
 */
export const redisLimiterModule = (config: Config & { readonly redisUrl: string }) =>
  new ContainerModule((options) => {
    bindResolved(options, REDIS, [TOKENS.logger], (logger) =>
      createRedisClient(config.redisUrl, { commandTimeoutMs: config.redisCommandTimeoutMs, logger }),
    );
    bindResolved(
      options,
      FAILOVER,
      [REDIS, TOKENS.clock, TOKENS.banPolicy, TOKENS.logger, TOKENS.instrumentation],
      (client, clock, banPolicy, logger, instrumentation) => {
        const primary = instrumentation.limiter(new RedisRateLimiter(client, { banPolicy }), 'redis');
        return config.rateLimitFailure === 'closed'
          ? new FailoverRateLimiter(primary, { mode: 'closed', logger })
          : new FailoverRateLimiter(primary, {
              mode: 'open',
              fallback: instrumentation.limiter(new MemoryRateLimiter(clock, { banPolicy }), 'fallback'),
              logger,
            });
      },
    );
    bindResolved(options, TOKENS.limiter, [FAILOVER], (limiter) => limiter);
    bindResolved(
      options,
      TOKENS.healthChecks,
      [FAILOVER, REDIS],
      (limiter, client): HealthCheck => ({
        name: 'redis',
        // Connected, and no recent command failed: the circuit alone looks healthy before the first call.
        healthy: () => client.status === 'ready' && limiter.healthy(),
        // Fail-open serves through an outage, so it must not take every instance out of rotation at once.
        critical: config.rateLimitFailure === 'closed',
      }),
    );
    bindResolved(
      options,
      TOKENS.closeables,
      [REDIS],
      (client): Closeable => ({
        name: 'redis',
        close: async () => {
          await client.quit().catch(() => client.disconnect());
        },
      }),
    );
  });
