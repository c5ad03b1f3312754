import type { Cluster } from 'ioredis';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clusterSlot } from '../../src/adapters/redis/cluster-slot.js';
import { RedisRateLimiter, rateLimitKey } from '../../src/adapters/redis/redis-rate-limiter.js';
import { systemClock } from '../../src/adapters/system/system-clock.js';
import { PLAN_POLICIES } from '../../src/domain/plan.js';
import { describeRateLimiterContract } from '../../src/testing/index.js';
import { hasRedisCluster, useRedisCluster } from './redis-cluster-fixture.js';
import { freshPrefix } from './redis-fixture.js';
import { expectSixtyOfHundredAdmitted } from './shared-limit.js';

const FREE = PLAN_POLICIES.free;

describe.skipIf(!hasRedisCluster)('RedisRateLimiter on a real Redis Cluster of three masters', () => {
  const redis = useRedisCluster();
  let client: Cluster;
  beforeAll(async () => {
    client = await redis.client();
  });

  // The contract drives time with a ManualClock; the limiter passes it to the script instead of TIME.
  describeRateLimiterContract(
    'redis cluster',
    async (clock, banPolicy) => ({
      limiter: new RedisRateLimiter(client, clock, { keyPrefix: freshPrefix(), banPolicy, timeFrom: 'clock' }),
      close: async () => {},
    }),
    { describe, it, beforeEach, afterEach },
  );

  /** How many times the masters ran a script, from their command statistics. */
  const scriptRuns = async (): Promise<number> => {
    let runs = 0;
    for (const master of client.nodes('master')) {
      const stats = await master.info('commandstats');
      for (const [, calls] of stats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)) runs += Number(calls);
    }
    return runs;
  };

  it('hashes a key to the slot the cluster gives it, hash tags and multi-byte characters included', async () => {
    const keys = [
      '',
      'foo',
      'rl:key:key_AbC123xyz789',
      'rl:addr:::1',
      '{user1000}.following',
      'a{}b',
      'a{b}{c}',
      'é{ü}',
      '{',
    ];
    for (let i = 0; i < 200; i += 1) keys.push(`${freshPrefix()}rl:key:${i}`);
    const slots = await Promise.all(keys.map(async (key) => Number(await client.cluster('KEYSLOT', key))));
    expect(keys.map(clusterSlot)).toEqual(slots);
  });

  it('keeps each subject in one key, and spreads subjects over every master', async () => {
    const prefix = freshPrefix();
    const limiter = new RedisRateLimiter(client, systemClock, { keyPrefix: prefix });
    await Promise.all(Array.from({ length: 30 }, (_, i) => limiter.admit(`key:spread-${i}`, FREE)));
    const held = await Promise.all(client.nodes('master').map((master) => master.keys(`${prefix}*`)));
    expect(held.map((keys) => keys.length > 0)).toEqual([true, true, true]);
    expect(held.flat().sort()).toEqual(
      Array.from({ length: 30 }, (_, i) => rateLimitKey(`key:spread-${i}`, prefix)).sort(),
    );
  });

  it('decides a turn’s decisions in one script call per hash slot, in the order asked within each', async () => {
    const prefix = freshPrefix();
    const limiter = new RedisRateLimiter(client, systemClock, { keyPrefix: prefix });
    // Seven subjects, one of them asked for 150 times: its slot needs two calls of at most 100.
    const subjects = [
      ...Array.from({ length: 150 }, () => 'key:busy'),
      ...Array.from({ length: 60 }, (_, i) => `key:${i % 6}`),
    ];
    const slots = new Set(subjects.map((s) => clusterSlot(rateLimitKey(s, prefix))));
    const before = await scriptRuns();
    const decisions = await Promise.all(subjects.map((s) => limiter.admit(s, PLAN_POLICIES.business)));
    expect(await scriptRuns()).toBe(before + slots.size + 1);
    for (const subject of new Set(subjects)) {
      const own = decisions.filter((_, n) => subjects[n] === subject).map((d) => d.remaining);
      expect(own).toEqual(own.map((_, n) => 999 - n));
    }
  });

  it('admits exactly 60 of 100 concurrent requests sent through two limiters on two cluster clients', async () => {
    const other = await redis.client();
    const prefix = freshPrefix();
    await expectSixtyOfHundredAdmitted([
      new RedisRateLimiter(client, systemClock, { keyPrefix: prefix }),
      new RedisRateLimiter(other, systemClock, { keyPrefix: prefix }),
    ]);
  });
});
