import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BanPolicy } from '../../src/domain/ban.js';
import { LIMIT_MAX, type RateLimitPolicy, rateLimitPolicy } from '../../src/domain/plan.js';
import { admitRequest, newSubjectState, type SubjectState } from '../../src/domain/rate-limit.js';
import { DAY_WINDOW, MINUTE_WINDOW, type WindowSpec } from '../../src/domain/sliding-window.js';
import { countBetween, mostInAnyWindow } from '../support/exact-log.js';
import { timelineArbitrary } from '../support/timelines.js';

// Bans would refuse requests for reasons of their own; these properties are about the windows alone.
const NO_BANS: BanPolicy = { strikes: 1e9, strikeWindowMs: 1, durationsMs: [1], escalationWindowMs: 1 };

/** A limiter under test: one decision per request time, true when admitted. */
type Admit = (nowMs: number) => boolean;

interface Case {
  readonly spec: WindowSpec;
  readonly policy: (limit: number) => RateLimitPolicy;
  readonly runs: number;
  readonly maxLength: number;
}

const CASES: readonly Case[] = [
  { spec: MINUTE_WINDOW, policy: (l) => rateLimitPolicy(l, LIMIT_MAX), runs: 6_000, maxLength: 250 },
  { spec: DAY_WINDOW, policy: (l) => rateLimitPolicy(LIMIT_MAX, l), runs: 4_000, maxLength: 250 },
];

const ourLimiter = (policy: RateLimitPolicy): Admit => {
  const state = newSubjectState();
  return (nowMs) => admitRequest(state, policy, NO_BANS, nowMs).outcome === 'admitted';
};

/** Runs a timeline and returns the times admitted and refused. */
function run(admit: Admit, timeline: readonly number[]): { admitted: number[]; refused: number[] } {
  const admitted: number[] = [];
  const refused: number[] = [];
  for (const t of timeline) (admit(t) ? admitted : refused).push(t);
  return { admitted, refused };
}

/** Property (a): no interval of the window's length holds more than `limit` admitted requests. */
const neverOverLimit = (spec: WindowSpec, make: (limit: number) => Admit, runs: number, maxLength: number) =>
  fc.check(
    fc.property(
      fc.integer({ min: 1, max: 30 }),
      timelineArbitrary(spec.bucketMs, spec.windowMs, maxLength),
      (limit, timeline) => {
        const { admitted } = run(make(limit), timeline);
        return mostInAnyWindow(admitted, spec.windowMs) <= limit;
      },
    ),
    { numRuns: runs, seed: 20261121 },
  );

describe('the bucketed sliding window, checked against an exact log', () => {
  for (const c of CASES) {
    describe(`the ${c.spec.name} window`, () => {
      it('never admits more than the limit in any interval of the window’s length', () => {
        const result = neverOverLimit(c.spec, (l) => ourLimiter(c.policy(l)), c.runs, c.maxLength);
        expect(result.failed, String(result.counterexample)).toBe(false);
        expect(result.numRuns).toBe(c.runs);
      });

      it('refuses only when the exact log, one bucket further back, is full', () => {
        let refusals = 0;
        const result = fc.check(
          fc.property(
            fc.integer({ min: 1, max: 30 }),
            timelineArbitrary(c.spec.bucketMs, c.spec.windowMs, c.maxLength),
            (limit, timeline) => {
              const { admitted, refused } = run(ourLimiter(c.policy(limit)), timeline);
              refusals += refused.length;
              return refused.every((t) => countBetween(admitted, t - c.spec.windowMs - c.spec.bucketMs, t) >= limit);
            },
          ),
          { numRuns: Math.floor(c.runs / 4), seed: 7 },
        );
        expect(result.failed, String(result.counterexample)).toBe(false);
        // The timelines must actually reach the limit, or this property would hold vacuously.
        expect(refusals).toBeGreaterThan(c.runs);
      });

      it('uses no quota for refused requests: replaying only the admitted ones admits them all', () => {
        const result = fc.check(
          fc.property(
            fc.integer({ min: 1, max: 30 }),
            timelineArbitrary(c.spec.bucketMs, c.spec.windowMs, c.maxLength),
            (limit, timeline) => {
              const first = run(ourLimiter(c.policy(limit)), timeline);
              const replay = run(ourLimiter(c.policy(limit)), first.admitted);
              return replay.refused.length === 0;
            },
          ),
          { numRuns: Math.floor(c.runs / 4), seed: 11 },
        );
        expect(result.failed, String(result.counterexample)).toBe(false);
      });

      it('counts nothing in either window for a refused request', () => {
        const result = fc.check(
          fc.property(timelineArbitrary(c.spec.bucketMs, c.spec.windowMs, 120), (timeline) => {
            const state: SubjectState = newSubjectState();
            const policy = c.policy(3);
            return timeline.every((t) => {
              const before = state.minute.total + state.day.total;
              const d = admitRequest(state, policy, NO_BANS, t);
              // Expiry may lower the totals on any call; only an admitted request may raise them.
              return d.outcome === 'admitted' || state.minute.total + state.day.total <= before;
            });
          }),
          { numRuns: 500, seed: 3 },
        );
        expect(result.failed, String(result.counterexample)).toBe(false);
      });
    });
  }
});

describe('the reference checks catch limiters that are not sliding windows', () => {
  const fixedWindow =
    (spec: WindowSpec) =>
    (limit: number): Admit => {
      let windowStart = Number.NEGATIVE_INFINITY;
      let count = 0;
      return (t) => {
        const start = Math.floor(t / spec.windowMs) * spec.windowMs;
        if (start !== windowStart) {
          windowStart = start;
          count = 0;
        }
        if (count >= limit) return false;
        count += 1;
        return true;
      };
    };

  // The "sliding window counter" approximation: the previous fixed window weighted by its overlap.
  const weightedCounter =
    (spec: WindowSpec) =>
    (limit: number): Admit => {
      let current = Number.NEGATIVE_INFINITY;
      let currentCount = 0;
      let previousCount = 0;
      return (t) => {
        const start = Math.floor(t / spec.windowMs) * spec.windowMs;
        if (start !== current) {
          previousCount = start - current === spec.windowMs ? currentCount : 0;
          current = start;
          currentCount = 0;
        }
        const weight = 1 - (t - start) / spec.windowMs;
        if (previousCount * weight + currentCount >= limit) return false;
        currentCount += 1;
        return true;
      };
    };

  for (const spec of [MINUTE_WINDOW, DAY_WINDOW]) {
    it(`finds a fixed-window limiter over the limit in some ${spec.name} interval`, () => {
      const result = neverOverLimit(spec, fixedWindow(spec), 2_000, 250);
      expect(result.failed).toBe(true);
    });

    it(`finds a weighted-counter limiter over the limit in some ${spec.name} interval`, () => {
      const result = neverOverLimit(spec, weightedCounter(spec), 2_000, 250);
      expect(result.failed).toBe(true);
    });
  }
});
