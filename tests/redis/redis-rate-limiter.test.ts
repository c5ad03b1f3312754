import { setTimeout as delay } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { RedisRateLimiter, rateLimitKey } from '../../src/adapters/redis/redis-rate-limiter.js';
import { systemClock } from '../../src/adapters/system/system-clock.js';
import { type BanPolicy, DEFAULT_BAN_POLICY } from '../../src/domain/ban.js';
import { LIMIT_MAX, PLAN_POLICIES, type RateLimitPolicy, rateLimitPolicy } from '../../src/domain/plan.js';
import type { RateLimitDecision } from '../../src/domain/rate-limit.js';
import { ManualClock } from '../../src/testing/index.js';
import { freshPrefix, hasRedisServer, useRedisServer } from './redis-fixture.js';
import { expectSixtyOfHundredAdmitted } from './shared-limit.js';

const FREE = PLAN_POLICIES.free;

describe.skipIf(!hasRedisServer)('RedisRateLimiter', () => {
  const redis = useRedisServer();
  let client: Redis;
  beforeAll(async () => {
    client = await redis.client();
  });

  const burst = async (limiter: RedisRateLimiter, n: number, policy = FREE, subject = 'key:a') => {
    const out: RateLimitDecision[] = [];
    for (let i = 0; i < n; i += 1) out.push(await limiter.admit(subject, policy));
    return out;
  };

  /**
   * Waits, when the clock is late in its second, for the next one: a burst started then counts in one
   * second's bucket, where one that crossed a second would keep the older bucket as a field of its own.
   */
  const earlyInASecond = async (): Promise<void> => {
    const into = Date.now() % 1000;
    if (into > 200) await delay(1005 - into);
  };

  /** How many times the server ran a script, from its command statistics. */
  const scriptRuns = async (): Promise<number> => {
    const stats = await client.info('commandstats');
    let runs = 0;
    for (const [, calls] of stats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)) runs += Number(calls);
    return runs;
  };

  describe('on the server clock', () => {
    it('admits the plan’s 60, refuses the 61st, and times Remaining and Retry-After by TIME', async () => {
      const limiter = new RedisRateLimiter(client, systemClock, { keyPrefix: freshPrefix() });
      const [seconds] = await client.time();
      const decisions = await burst(limiter, 61);
      expect(decisions.map((d) => d.outcome)).toEqual([...Array(60).fill('admitted'), 'rate_limited']);
      const first = decisions[0] as RateLimitDecision;
      // The first request's bucket leaves the window 61 buckets after it began.
      expect(first.resetAtMs % 1_000).toBe(0);
      expect(first.resetAtMs / 1_000 - Number(seconds)).toBeGreaterThanOrEqual(61);
      expect(first.resetAtMs / 1_000 - Number(seconds)).toBeLessThanOrEqual(62);
      const refused = decisions[60] as RateLimitDecision;
      expect(refused.retryAfterMs).toBeGreaterThan(59_000);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(61_000);
    });

    it('admits exactly 60 of 100 concurrent requests sent through two limiters on two connections', async () => {
      const other = await redis.client();
      const prefix = freshPrefix();
      await expectSixtyOfHundredAdmitted([
        new RedisRateLimiter(client, systemClock, { keyPrefix: prefix }),
        new RedisRateLimiter(other, systemClock, { keyPrefix: prefix }),
      ]);
    });
  });

  describe('keys', () => {
    const banAfterThree: BanPolicy = { ...DEFAULT_BAN_POLICY, strikes: 3 };

    /** The figures of the subject's state field `s`: code, time, then minute and day {older, head, newest, newest's count}, then the ban's end. */
    const stateOf = async (key: string): Promise<number[]> => {
      const packed = (await client.hgetBuffer(key, 's')) as Buffer;
      return Array.from({ length: packed.length / 8 }, (_, i) => packed.readDoubleLE(8 * i));
    };
    const fieldsOf = async (key: string, prefix: string): Promise<string[]> =>
      (await client.hkeys(key)).filter((field) => field.startsWith(prefix));

    it('keeps all of a subject’s state in one key under the prefix, which expires with its last day bucket', async () => {
      const keyPrefix = freshPrefix();
      const limiter = new RedisRateLimiter(client, systemClock, { keyPrefix, banPolicy: banAfterThree });
      await earlyInASecond();
      await burst(limiter, 62);
      const key = rateLimitKey('key:a', keyPrefix);
      expect(key).toBe(`${keyPrefix}rl:key:a`);
      expect(await client.keys(`${keyPrefix}*`)).toEqual([key]);
      // The state, and the two refusals so far as strikes.
      expect((await client.hkeys(key)).sort()).toEqual(['s', 'x']);
      expect(await client.pttl(key)).toBeGreaterThan(86_399_000);
      expect(await client.pttl(key)).toBeLessThanOrEqual(86_700_000);

      expect((await limiter.admit('key:a', FREE)).outcome).toBe('key_banned');
      // The strikes that brought the ban are spent; the ban is kept while it can still lengthen the next.
      expect((await client.hkeys(key)).sort()).toEqual(['b', 's']);
      expect(await client.keys(`${keyPrefix}*`)).toEqual([key]);
      expect(await client.pttl(key)).toBeGreaterThan(86_399_000);
      expect(await client.pttl(key)).toBeLessThanOrEqual(86_700_000);
    });

    it('lengthens the key’s life to a ban that outlasts its buckets', async () => {
      const clock = new ManualClock();
      const keyPrefix = freshPrefix();
      const longBans: BanPolicy = { ...banAfterThree, durationsMs: [3 * 86_400_000] };
      const limiter = new RedisRateLimiter(client, clock, { keyPrefix, banPolicy: longBans, timeFrom: 'clock' });
      await burst(limiter, 63);
      expect(await client.pttl(rateLimitKey('key:a', keyPrefix))).toBeGreaterThan(3 * 86_400_000 - 60_000);
    });

    it('empties a window once its last bucket has left, as the domain then forgets the window', async () => {
      const clock = new ManualClock();
      const keyPrefix = freshPrefix();
      const limiter = new RedisRateLimiter(client, clock, { keyPrefix, timeFrom: 'clock' });
      const key = rateLimitKey('key:a', keyPrefix);
      const oneADay = rateLimitPolicy(60, 1);
      expect((await limiter.admit('key:a', oneADay)).outcome).toBe('admitted');
      expect((await stateOf(key)).slice(2, 10)).toEqual([
        0, 1_767_225_600, 1_767_225_600, 1, 0, 5_890_752, 5_890_752, 1,
      ]);
      // A refusal counts nothing, so only expiry can have emptied the minute window.
      clock.advance(61_000);
      expect((await limiter.admit('key:a', oneADay)).outcome).toBe('rate_limited');
      expect((await stateOf(key)).slice(2, 10)).toEqual([0, 0, 0, 0, 0, 5_890_752, 5_890_752, 1]);
    });

    it('holds one field per counted bucket before the newest over a long timeline, linked oldest first', async () => {
      const clock = new ManualClock();
      const keyPrefix = freshPrefix();
      const limiter = new RedisRateLimiter(client, clock, { keyPrefix, timeFrom: 'clock' });
      const key = rateLimitKey('key:a', keyPrefix);
      const unlimited = rateLimitPolicy(LIMIT_MAX, LIMIT_MAX);
      const most = { minute: 0, day: 0 };
      const step = async (gapMs: number): Promise<void> => {
        clock.advance(gapMs);
        expect((await limiter.admit('key:a', unlimited)).outcome).toBe('admitted');
        most.minute = Math.max(most.minute, (await fieldsOf(key, 'm')).length);
        most.day = Math.max(most.day, (await fieldsOf(key, 'd')).length);
      };
      // Every second for two minutes fills the minute window; every 4 minutes for 30 hours, the day.
      for (let i = 0; i < 120; i += 1) await step(1_000);
      for (let i = 0; i < 450; i += 1) await step(240_000);
      // A field for each counted bucket but the newest: 61 and 289 buckets count.
      expect(most.minute).toBe(60);
      expect(most.day).toBeLessThanOrEqual(288);
      expect(most.day).toBeGreaterThan(280);

      // The state's count of the day's older buckets is their sum, and the links reach each of them once.
      const [older, head, newest] = (await stateOf(key)).slice(6, 9) as [number, number, number];
      const day = await client.hgetallBuffer(key);
      let linked = 0;
      let counted = 0;
      for (let bucket = head; bucket !== newest; linked += 1) {
        const field = day[`d${bucket}`] as Buffer;
        counted += field.readDoubleLE(0);
        bucket = field.readDoubleLE(8);
      }
      expect(linked).toBe((await fieldsOf(key, 'd')).length);
      expect(counted).toBe(older);
    });
  });

  describe('bans', () => {
    const banned = async (limiter: RedisRateLimiter, subject = 'key:a'): Promise<RateLimitDecision> => {
      await burst(limiter, 60, FREE, subject);
      const refusals = await burst(limiter, 20, FREE, subject);
      return refusals[19] as RateLimitDecision;
    };

    it('answers a ban in process until it ends, with no round trip, then asks Redis again', async () => {
      const clock = new ManualClock();
      const limiter = new RedisRateLimiter(client, clock, { keyPrefix: freshPrefix(), timeFrom: 'clock' });
      expect((await banned(limiter)).outcome).toBe('key_banned');
      expect(limiter.cachedBans).toBe(1);
      const before = await scriptRuns();
      clock.advance(100_000);
      const during = await burst(limiter, 50);
      expect(during.every((d) => d.outcome === 'key_banned' && d.retryAfterMs === 200_000)).toBe(true);
      expect(await scriptRuns()).toBe(before);
      clock.advance(200_000);
      expect((await limiter.admit('key:a', FREE)).outcome).toBe('admitted');
      expect(await scriptRuns()).toBe(before + 1);
      expect(limiter.cachedBans).toBe(0);
    });

    it('learns a ban another process made, and keeps it in process too', async () => {
      const clock = new ManualClock();
      const keyPrefix = freshPrefix();
      const first = new RedisRateLimiter(client, clock, { keyPrefix, timeFrom: 'clock' });
      const second = new RedisRateLimiter(client, clock, { keyPrefix, timeFrom: 'clock' });
      await banned(first);
      clock.advance(1_000);
      const seen = await second.admit('key:a', FREE);
      expect(seen.outcome).toBe('key_banned');
      expect(seen.retryAfterMs).toBe(299_000);
      expect(second.cachedBans).toBe(1);
    });

    it('holds no more bans in process than its cache size, and still refuses the ones it dropped', async () => {
      const clock = new ManualClock();
      const limiter = new RedisRateLimiter(client, clock, {
        keyPrefix: freshPrefix(),
        banCacheSize: 2,
        timeFrom: 'clock',
      });
      for (const subject of ['key:a', 'key:b', 'key:c']) await banned(limiter, subject);
      expect(limiter.cachedBans).toBe(2);
      expect((await limiter.admit('key:a', FREE)).outcome).toBe('key_banned');
    });
  });

  describe('batches', () => {
    it('decides the requests of one turn of the event loop in one call of the script, 100 at most', async () => {
      const limiter = new RedisRateLimiter(client, systemClock, { keyPrefix: freshPrefix() });
      const before = await scriptRuns();
      await limiter.admit('key:alone', FREE);
      expect(await scriptRuns()).toBe(before + 1);
      const subjects = Array.from({ length: 250 }, (_, i) => `key:${i % 7}`);
      const decisions = await Promise.all(subjects.map((s) => limiter.admit(s, PLAN_POLICIES.business)));
      expect(await scriptRuns()).toBe(before + 1 + 3);
      // In the order asked, across the three calls: each subject's Remaining counts down by one.
      for (let i = 0; i < 7; i += 1) {
        const own = decisions.filter((_, n) => n % 7 === i).map((d) => d.remaining);
        expect(own).toEqual(own.map((_, n) => 999 - n));
      }
    });

    it('fails every decision of a call that fails, and decides the next turn afresh', async () => {
      const limiter = new RedisRateLimiter(client, systemClock, { keyPrefix: freshPrefix() });
      // A limit the domain can never make: the script stops at it, before it writes anything.
      const broken = { perMinute: 'many' as unknown as number, perDay: 1_000 };
      const both = await Promise.allSettled([limiter.admit('key:b', broken), limiter.admit('key:a', FREE)]);
      expect(both.map((s) => s.status)).toEqual(['rejected', 'rejected']);
      expect((await limiter.admit('key:a', FREE)).remaining).toBe(59);
    });
  });

  describe('the script', () => {
    it('still decides after the server forgot it (EVALSHA falls back to EVAL)', async () => {
      const limiter = new RedisRateLimiter(client, systemClock, { keyPrefix: freshPrefix() });
      expect((await limiter.admit('key:a', FREE)).remaining).toBe(59);
      await client.script('FLUSH');
      expect((await limiter.admit('key:a', FREE)).remaining).toBe(58);
    });

    it('takes limits per call, so an enterprise key’s own limits and a plan change need no migration', async () => {
      const limiter = new RedisRateLimiter(client, systemClock, { keyPrefix: freshPrefix() });
      const small: RateLimitPolicy = rateLimitPolicy(5, 50_000);
      const outcomes = (await burst(limiter, 6, small)).map((d) => d.outcome);
      expect(outcomes).toEqual([...Array(5).fill('admitted'), 'rate_limited']);
      const raised = await limiter.admit('key:a', rateLimitPolicy(10, 50_000));
      expect([raised.outcome, raised.limit, raised.remaining]).toEqual(['admitted', 10, 4]);
    });
  });
});
