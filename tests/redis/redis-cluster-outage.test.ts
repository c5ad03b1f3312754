import { afterEach, describe, expect, it } from 'vitest';
import { FailoverRateLimiter } from '../../src/adapters/failover/failover-rate-limiter.js';
import { MemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.js';
import { RedisRateLimiter, rateLimitKey } from '../../src/adapters/redis/redis-rate-limiter.js';
import { systemClock } from '../../src/adapters/system/system-clock.js';
import { PLAN_POLICIES } from '../../src/domain/plan.js';
import type { RedisClusterMaster } from '../../support/redis-cluster.js';
import { RecordingLogger } from '../support/recording-logger.js';
import { hasRedisCluster, useRedisCluster } from './redis-cluster-fixture.js';
import { eventually, freshPrefix } from './redis-fixture.js';

const FREE = PLAN_POLICIES.free;
// Long enough that a loaded machine's slow answer from a running master opens no circuit: a lost
// master's decisions fail at once, long before it.
const COMMAND_TIMEOUT_MS = 2_000;
const AT_ONCE_MS = 1_300;

describe.skipIf(!hasRedisCluster)('the Redis limiter when a master of its cluster fails', () => {
  const redis = useRedisCluster();
  // A test that fails half way must not leave the next one without a master.
  afterEach(async () => {
    for (const master of redis.cluster().masters) if (!master.running()) await master.restart();
    await redis.cluster().ready();
  });

  it('fails the decisions of the lost master’s slots at once, logs it once, and decides there again once it is back', async () => {
    const logger = new RecordingLogger();
    const client = await redis.client({ commandTimeoutMs: COMMAND_TIMEOUT_MS, logger });
    const keyPrefix = freshPrefix();
    const limiter = new RedisRateLimiter(client, systemClock, { keyPrefix });
    const subject = 'key:on-the-victim';
    const victim: RedisClusterMaster = await redis.cluster().masterOf(rateLimitKey(subject, keyPrefix));
    expect(await limiter.admit(subject, FREE)).toMatchObject({ outcome: 'admitted', remaining: 59 });

    await victim.kill();
    for (let i = 0; i < 5; i += 1) {
      const started = performance.now();
      await expect(limiter.admit(subject, FREE)).rejects.toThrow();
      // Refused at once, not after retries or the command timeout: the fallback decides meanwhile.
      expect(performance.now() - started).toBeLessThan(AT_ONCE_MS);
    }
    const warnings = logger.lines.filter((line) => line.level === 'warn');
    expect(warnings.map((line) => line.msg)).toEqual(['redis cluster node unreachable']);
    expect(warnings[0]?.obj).toMatchObject({ node: `127.0.0.1:${victim.port}` });

    await victim.restart();
    await redis.cluster().ready();
    // The restarted master is empty (nothing is saved), so the subject starts afresh.
    await eventually('a decision on the restarted master', async () =>
      limiter.admit(subject, FREE).then(
        (d) => d.outcome === 'admitted',
        () => false,
      ),
    );
    expect(logger.lines.map((line) => line.msg)).toEqual([
      'redis cluster node unreachable',
      'redis cluster node reachable again',
    ]);
  });

  it('lets a circuit breaker fall back in process and close again, as with one server', async () => {
    const client = await redis.client({ commandTimeoutMs: COMMAND_TIMEOUT_MS });
    const keyPrefix = freshPrefix();
    const shared = new RedisRateLimiter(client, systemClock, { keyPrefix });
    const limiter = new FailoverRateLimiter(shared, new MemoryRateLimiter(systemClock), systemClock, {
      coolDownMs: 50,
    });
    const subject = 'key:failover';
    const victim = await redis.cluster().masterOf(rateLimitKey(subject, keyPrefix));
    await victim.kill();
    expect((await limiter.admit(subject, FREE)).outcome).toBe('admitted');
    expect(limiter.status()).toMatchObject({ healthy: false, failures: 1, fallbackDecisions: 1 });

    await victim.restart();
    await redis.cluster().ready();
    await eventually('the limiter uses the cluster again', async () => {
      await limiter.admit(subject, FREE);
      return limiter.healthy();
    });
    const before = limiter.status().fallbackDecisions;
    expect((await limiter.admit(subject, FREE)).outcome).toBe('admitted');
    expect(limiter.status().fallbackDecisions).toBe(before);
  });
});
