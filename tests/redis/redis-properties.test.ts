import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.js';
import { RedisRateLimiter } from '../../src/adapters/redis/redis-rate-limiter.js';
import type { BanPolicy } from '../../src/domain/ban.js';
import { LIMIT_MAX, type RateLimitPolicy, rateLimitPolicy } from '../../src/domain/plan.js';
import type { RateLimitDecision } from '../../src/domain/rate-limit.js';
import { DAY_WINDOW, MINUTE_WINDOW, type WindowSpec } from '../../src/domain/sliding-window.js';
import { ManualClock } from '../../src/testing/index.js';
import { countBetween, mostInAnyWindow } from '../support/exact-log.js';
import { timelineArbitrary } from '../support/timelines.js';
import { freshPrefix, hasRedisServer, useRedisServer } from './redis-fixture.js';

// Bans would refuse requests for reasons of their own; properties (a) to (c) are about the windows alone.
const NO_BANS: BanPolicy = { strikes: 1e9, strikeWindowMs: 1, durationsMs: [1], escalationWindowMs: 1 };

interface Case {
  readonly spec: WindowSpec;
  readonly policy: (limit: number) => RateLimitPolicy;
  /** Fewer than the pure checks: every request here is a round trip. */
  readonly runs: number;
}

const CASES: readonly Case[] = [
  { spec: MINUTE_WINDOW, policy: (l) => rateLimitPolicy(l, LIMIT_MAX), runs: 300 },
  { spec: DAY_WINDOW, policy: (l) => rateLimitPolicy(LIMIT_MAX, l), runs: 200 },
];
const MAX_LENGTH = 120;

describe.skipIf(!hasRedisServer)('RedisRateLimiter, checked against an exact log', () => {
  const redis = useRedisServer();
  let client: Redis;
  beforeAll(async () => {
    client = await redis.client();
  });

  /** Runs a timeline on a fresh subject of a Redis limiter driven by a test clock. */
  async function run(
    timeline: readonly number[],
    policy: RateLimitPolicy,
  ): Promise<{ admitted: number[]; refused: number[] }> {
    const clock = new ManualClock();
    const limiter = new RedisRateLimiter(client, clock, {
      keyPrefix: freshPrefix(),
      banPolicy: NO_BANS,
      timeFrom: 'clock',
    });
    const admitted: number[] = [];
    const refused: number[] = [];
    for (const t of timeline) {
      clock.ms = t;
      const d = await limiter.admit('subject', policy);
      (d.outcome === 'admitted' ? admitted : refused).push(t);
    }
    return { admitted, refused };
  }

  const limitAndTimeline = (spec: WindowSpec) =>
    fc.tuple(fc.integer({ min: 1, max: 30 }), timelineArbitrary(spec.bucketMs, spec.windowMs, MAX_LENGTH));

  for (const c of CASES) {
    describe(`the ${c.spec.name} window`, () => {
      it('(a) never admits more than the limit in any interval of the window’s length', async () => {
        let admittedInAll = 0;
        await fc.assert(
          fc.asyncProperty(limitAndTimeline(c.spec), async ([limit, timeline]) => {
            const { admitted } = await run(timeline, c.policy(limit));
            admittedInAll += admitted.length;
            expect(mostInAnyWindow(admitted, c.spec.windowMs)).toBeLessThanOrEqual(limit);
          }),
          { numRuns: c.runs, seed: 5 },
        );
        expect(admittedInAll).toBeGreaterThan(c.runs);
      });

      it('(b) refuses only when the exact log, one bucket further back, is full', async () => {
        let refusals = 0;
        await fc.assert(
          fc.asyncProperty(limitAndTimeline(c.spec), async ([limit, timeline]) => {
            const { admitted, refused } = await run(timeline, c.policy(limit));
            refusals += refused.length;
            for (const t of refused) {
              expect(countBetween(admitted, t - c.spec.windowMs - c.spec.bucketMs, t)).toBeGreaterThanOrEqual(limit);
            }
          }),
          { numRuns: c.runs / 2, seed: 7 },
        );
        // The timelines must actually reach the limit, or this property would hold vacuously.
        expect(refusals).toBeGreaterThan(c.runs);
      });

      it('(c) uses no quota for refused requests: replaying only the admitted ones admits them all', async () => {
        await fc.assert(
          fc.asyncProperty(limitAndTimeline(c.spec), async ([limit, timeline]) => {
            const first = await run(timeline, c.policy(limit));
            const replay = await run(first.admitted, c.policy(limit));
            expect(replay.refused).toEqual([]);
          }),
          { numRuns: c.runs / 2, seed: 11 },
        );
      });
    });
  }

  describe('(d) the same decisions as the in-process limiter', () => {
    const POLICIES = [
      rateLimitPolicy(3, 12),
      rateLimitPolicy(5, 8),
      rateLimitPolicy(2, 40),
      rateLimitPolicy(60, 1_000),
    ];
    const seconds = (min: number, max: number) => fc.integer({ min, max }).map((s) => s * 1_000);
    // Mostly forward, across bucket edges, windows and days; now and then a step back, which both
    // limiters must absorb the same way (by writing into their newest bucket).
    const anyGap = fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 0, max: 1_500 }) },
      { weight: 3, arbitrary: fc.integer({ min: 0, max: 20_000 }) },
      { weight: 2, arbitrary: fc.integer({ min: 50_000, max: 400_000 }) },
      { weight: 1, arbitrary: fc.integer({ min: 3_600_000, max: 90_000_000 }) },
      { weight: 1, arbitrary: fc.integer({ min: -5_000, max: -1 }) },
    );
    // Whole seconds, like the ban policies below, so that requests land exactly on the edges of the
    // strike and escalation windows, where a < against a <= shows.
    const wholeSecondGap = fc.oneof(
      { weight: 8, arbitrary: seconds(0, 2) },
      { weight: 2, arbitrary: seconds(3, 120) },
      { weight: 1, arbitrary: seconds(-3, -1) },
    );
    const bans: fc.Arbitrary<BanPolicy> = fc.record({
      strikes: fc.integer({ min: 1, max: 6 }),
      strikeWindowMs: seconds(1, 20),
      durationsMs: fc.array(seconds(1, 60), { minLength: 1, maxLength: 3 }),
      escalationWindowMs: seconds(5, 300),
    });

    /** The in-process limiter and a Redis one on a fresh prefix, both on one test clock. */
    const limiters = (banPolicy: BanPolicy) => {
      const clock = new ManualClock();
      const memory = new MemoryRateLimiter(clock, { banPolicy });
      const shared = new RedisRateLimiter(client, clock, { keyPrefix: freshPrefix(), banPolicy, timeFrom: 'clock' });
      return { clock, memory, shared };
    };

    const cases = [
      { name: 'any times', gap: anyGap, seed: 13 },
      { name: 'whole seconds', gap: wholeSecondGap, seed: 17 },
    ];
    for (const { name, gap, seed } of cases) {
      it(`gives the same decision, field for field, for every request of a timeline with bans (${name})`, async () => {
        const step = fc.record({ gapMs: gap, policy: fc.constantFrom(...POLICIES) });
        const seen = new Set<string>();
        await fc.assert(
          fc.asyncProperty(
            bans,
            fc.array(step, { minLength: 1, maxLength: 150, size: 'max' }),
            async (banPolicy, steps) => {
              const { clock, memory, shared } = limiters(banPolicy);
              const fromRedis: RateLimitDecision[] = [];
              const inProcess: RateLimitDecision[] = [];
              for (const { gapMs, policy } of steps) {
                clock.advance(gapMs);
                fromRedis.push(await shared.admit('subject', policy));
                inProcess.push(await memory.admit('subject', policy));
              }
              for (const d of fromRedis) seen.add(d.outcome);
              expect(fromRedis).toEqual(inProcess);
            },
          ),
          { numRuns: 250, seed },
        );
        // Every kind of answer must have been compared, or the check proves less than it says.
        expect([...seen].sort()).toEqual(['admitted', 'key_banned', 'rate_limited']);
      });
    }

    it('gives the same decisions when they are asked for together, each batch in the order asked', async () => {
      // Several subjects, each asked for several times in one turn of the event loop, so that one call of
      // the script decides them one after the other, some for the same subject, some banning it.
      const burst = fc.array(
        fc.record({ subject: fc.constantFrom('a', 'b', 'c'), policy: fc.constantFrom(...POLICIES) }),
        {
          minLength: 1,
          maxLength: 12,
        },
      );
      const step = fc.record({ gapMs: wholeSecondGap, burst });
      const seen = new Set<string>();
      await fc.assert(
        fc.asyncProperty(bans, fc.array(step, { minLength: 1, maxLength: 40 }), async (banPolicy, steps) => {
          const { clock, memory, shared } = limiters(banPolicy);
          for (const { gapMs, burst: asked } of steps) {
            clock.advance(gapMs);
            const together = await Promise.all(asked.map(({ subject, policy }) => shared.admit(subject, policy)));
            const oneByOne = [];
            for (const { subject, policy } of asked) oneByOne.push(await memory.admit(subject, policy));
            for (const d of together) seen.add(d.outcome);
            expect(together).toEqual(oneByOne);
          }
        }),
        { numRuns: 150, seed: 19 },
      );
      expect([...seen].sort()).toEqual(['admitted', 'key_banned', 'rate_limited']);
    });
  });
});
