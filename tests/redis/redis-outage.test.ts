import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FailoverRateLimiter,
  type FailoverRateLimiterOptions,
} from '../../src/adapters/failover/failover-rate-limiter.js';
import { UnavailableRateLimiter } from '../../src/adapters/failover/unavailable-rate-limiter.js';
import { MemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.js';
import { RedisRateLimiter } from '../../src/adapters/redis/redis-rate-limiter.js';
import { systemClock } from '../../src/adapters/system/system-clock.js';
import type { RateLimiter } from '../../src/application/ports/rate-limiter.js';
import { DEFAULT_BAN_POLICY } from '../../src/domain/ban.js';
import { LIMIT_MAX, PLAN_POLICIES, rateLimitPolicy } from '../../src/domain/plan.js';
import type { RateLimitDecision } from '../../src/domain/rate-limit.js';
import { RecordingLogger } from '../support/recording-logger.js';
import { eventually, freshPrefix, hasRedisServer, useRedisServer } from './redis-fixture.js';

const FREE = PLAN_POLICIES.free;
// The stream must keep reaching Redis: with no limit in reach, nothing is refused or banned in process.
const UNLIMITED = rateLimitPolicy(LIMIT_MAX, LIMIT_MAX);
// The fixture's command timeout (2 s) while Redis is up, so that a loaded machine's slow answer opens
// no circuit; a short one where the test waits for it, against a Redis that hangs.
const HANG_TIMEOUT_MS = 300;

describe.skipIf(!hasRedisServer)('the Redis limiter when Redis fails', () => {
  const redis = useRedisServer();
  // A test that fails half way must not leave the next one without a server.
  afterEach(async () => {
    if (!redis.server().running()) await redis.server().restart();
  });

  /** A service process's limiter: Redis behind a circuit breaker, with an in-process fallback unless given one. */
  const processLimiter = async (
    keyPrefix: string,
    options: FailoverRateLimiterOptions = {},
    fallback: RateLimiter = new MemoryRateLimiter(systemClock),
    commandTimeoutMs?: number,
  ) => {
    const client = await redis.client(commandTimeoutMs === undefined ? {} : { commandTimeoutMs });
    const shared = new RedisRateLimiter(client, systemClock, { keyPrefix });
    return new FailoverRateLimiter(shared, fallback, systemClock, { coolDownMs: 50, ...options });
  };

  /** The outcome of one decision through `limiter`. */
  const outcomeOf = async (limiter: RateLimiter, subject: string, policy = FREE) =>
    (await limiter.admit(subject, policy)).outcome;

  /** Waits until each limiter has probed Redis and uses it again. */
  const recovered = (...limiters: FailoverRateLimiter[]) =>
    eventually('the limiters use Redis again', async () => {
      for (const limiter of limiters) await limiter.admit('key:probe', UNLIMITED).catch(() => undefined);
      return limiters.every((limiter) => limiter.healthy());
    });

  it('fails open under a stream of decisions when Redis dies, and shares one limit again once it returns', async () => {
    const keyPrefix = freshPrefix();
    const logger = new RecordingLogger();
    const limiters = [await processLimiter(keyPrefix, { logger }), await processLimiter(keyPrefix)];
    const errors: unknown[] = [];
    let decisions = 0;
    let running = true;
    const worker = async (limiter: FailoverRateLimiter, n: number): Promise<void> => {
      while (running) {
        await limiter.admit(`key:stream-${n}`, UNLIMITED).then(
          () => {
            decisions += 1;
          },
          (error: unknown) => errors.push(error),
        );
        // The in-process fallback answers without I/O; without a turn of the event loop the stream
        // would starve the timers of the test itself.
        await nextTurn();
      }
    };
    const workers = Array.from({ length: 8 }, (_, n) => worker(limiters[n % 2] as FailoverRateLimiter, n));
    await eventually('decisions flow', () => decisions >= 50);
    await redis.server().kill();
    await eventually('both processes decide in process', () =>
      limiters.every((limiter) => limiter.status().fallbackDecisions >= 50),
    );
    running = false;
    await Promise.all(workers);

    expect(errors).toEqual([]);
    for (const limiter of limiters) expect(limiter.status()).toMatchObject({ healthy: false, unavailable: 0 });
    expect(limiters.every((limiter) => limiter.status().failures >= 1)).toBe(true);
    expect(logger.lines.map((line) => line.level)).toEqual(['warn']);

    await redis.server().restart();
    await recovered(...limiters);
    expect(logger.lines.map((line) => line.level)).toEqual(['warn', 'info']);
    const before = limiters.map((limiter) => limiter.status().fallbackDecisions);
    // Spread over both processes, one subject gets the plan's 60 in all, as it did before the outage.
    const outcomes = [];
    for (let i = 0; i < 61; i += 1) outcomes.push(await outcomeOf(limiters[i % 2] as FailoverRateLimiter, 'key:a'));
    expect(outcomes).toEqual([...Array(60).fill('admitted'), 'rate_limited']);
    expect(limiters.map((limiter) => limiter.status().fallbackDecisions)).toEqual(before);
  });

  it('keeps a banned client banned while Redis is down, from the bans held in process', async () => {
    const keyPrefix = freshPrefix();
    const client = await redis.client();
    const banAfterTwo = { ...DEFAULT_BAN_POLICY, strikes: 2 };
    const shared = new RedisRateLimiter(client, systemClock, { keyPrefix, banPolicy: banAfterTwo });
    const fallback = new MemoryRateLimiter(systemClock, { banPolicy: banAfterTwo });
    const limiter = new FailoverRateLimiter(shared, fallback, systemClock, { coolDownMs: 50 });
    const one = rateLimitPolicy(1, 1_000);
    const outcomes = [];
    for (let i = 0; i < 3; i += 1) outcomes.push(await outcomeOf(limiter, 'key:pest', one));
    expect(outcomes).toEqual(['admitted', 'rate_limited', 'key_banned']);
    await redis.server().kill();
    expect(await outcomeOf(limiter, 'key:other', one)).toBe('admitted');
    expect(limiter.healthy()).toBe(false);
    let probes = 0;
    await eventually('a probe of Redis after the cool-down', async () => {
      expect(await outcomeOf(limiter, 'key:pest', one)).toBe('key_banned');
      probes += 1;
      await limiter.admit(`key:other-${probes}`, one);
      return limiter.status().failures === 2;
    });
    expect(limiter.healthy()).toBe(false);
  });

  it('fails closed, answering unavailable while Redis is down, when so configured', async () => {
    const limiter = await processLimiter(freshPrefix(), {}, new UnavailableRateLimiter());
    expect(await outcomeOf(limiter, 'key:a')).toBe('admitted');
    await redis.server().kill();
    expect(await outcomeOf(limiter, 'key:a')).toBe('unavailable');
    expect(await outcomeOf(limiter, 'key:a')).toBe('unavailable');
    expect(limiter.status()).toMatchObject({ healthy: false, fallbackDecisions: 0 });
    expect(limiter.status().unavailable).toBeGreaterThanOrEqual(2);

    await redis.server().restart();
    await recovered(limiter);
    // The restarted server is empty (nothing is saved), so the subject starts afresh.
    expect(await limiter.admit('key:a', FREE)).toMatchObject({ outcome: 'admitted', remaining: 59 });
  });

  it('decides within the command timeout when Redis hangs, and uses it again once it wakes', async () => {
    const limiter = await processLimiter(freshPrefix(), {}, undefined, HANG_TIMEOUT_MS);
    expect(await limiter.admit('key:a', FREE)).toMatchObject({ remaining: 59 });
    redis.server().pause();
    try {
      const started = performance.now();
      const decided = await limiter.admit('key:a', FREE);
      const tookMs = performance.now() - started;
      expect(decided.outcome).toBe('admitted');
      expect(limiter.status()).toMatchObject({ healthy: false, failures: 1, fallbackDecisions: 1 });
      // The timeout bounds the wait; the margin is for a loaded test machine, not for Redis.
      expect(tookMs).toBeGreaterThanOrEqual(HANG_TIMEOUT_MS - 5);
      expect(tookMs).toBeLessThan(HANG_TIMEOUT_MS + 1_500);
    } finally {
      redis.server().resume();
    }
    await recovered(limiter);
    const after = await limiter.admit('key:a', FREE);
    expect(after.outcome).toBe('admitted');
    expect((after as RateLimitDecision).remaining).toBeLessThan(59);
  });
});
