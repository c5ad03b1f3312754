import assert from 'node:assert/strict';
import type { RateLimiter } from '../application/ports/rate-limiter.js';
import { type BanPolicy, DEFAULT_BAN_POLICY } from '../domain/ban.js';
import { PLAN_POLICIES, type RateLimitPolicy, rateLimitPolicy } from '../domain/plan.js';
import type { RateLimitDecision } from '../domain/rate-limit.js';
import type { RateLimitStanding } from '../domain/rate-limit-standing.js';
import { assertMatches } from './assert-match.js';
import { ManualClock } from './manual-clock.js';
import { namingRules, type TestRunner } from './test-runner.js';

/** One limiter under test, and how to release what it holds once the test is done. */
export interface LimiterFixture {
  /** The limiter under test. */
  readonly limiter: RateLimiter;
  /** Releases what it holds (connections, keys); called after each test. */
  close(): Promise<void>;
}

/**
 * Makes a fresh limiter whose time is `clock` (an adapter on a server clock takes it as a test time
 * source) under `banPolicy`. Subjects must not leak between fixtures.
 */
export type MakeLimiter = (clock: ManualClock, banPolicy: BanPolicy) => Promise<LimiterFixture>;

const FREE = PLAN_POLICIES.free;
// A whole second, so that bucket edges in these tests are plain to see.
const START = Date.UTC(2026, 0, 1, 0, 0, 0);

/**
 * The RateLimiter contract, run over every limiter adapter: the minute and day windows of a plan, bans
 * and their lengthening, peeking without counting, and exactly the limit admitted under a race.
 *
 * @param adapter - the name the suite is reported under
 * @param make - a fresh limiter for each test, on the clock given
 * @param runner - the test runner's `{ describe, it, beforeEach, afterEach }`
 */
export function describeRateLimiterContract(adapter: string, make: MakeLimiter, runner: TestRunner): void {
  const { describe, it, beforeEach, afterEach } = namingRules(runner);
  describe(`RateLimiter contract: ${adapter}`, () => {
    let clock: ManualClock;
    let fixture: LimiterFixture;
    let subject: string;
    let counter = 0;
    beforeEach(async () => {
      clock = new ManualClock(START);
      fixture = await make(clock, DEFAULT_BAN_POLICY);
      counter += 1;
      subject = `key:contract-${counter}-${Math.random().toString(36).slice(2)}`;
    });
    afterEach(async () => {
      await fixture.close();
    });

    /** One request's decision: a limiter whose store is up decides every request, so `unavailable` fails. */
    const admit = async (who: string, policy: RateLimitPolicy): Promise<RateLimitDecision> => {
      const answer = await fixture.limiter.admit(who, policy);
      if (answer.outcome === 'unavailable') throw new Error(`the limiter could not decide: ${answer.reason}`);
      return answer;
    };

    /** Where a subject stands: a limiter whose store is up reads every standing, so `unavailable` fails. */
    const peek = async (who: string, policy: RateLimitPolicy): Promise<RateLimitStanding> => {
      const answer = await fixture.limiter.peek(who, policy);
      if ('outcome' in answer) throw new Error(`the limiter could not read: ${answer.reason}`);
      return answer;
    };

    const burst = async (n: number, who = subject, policy = FREE): Promise<RateLimitDecision[]> => {
      const out: RateLimitDecision[] = [];
      for (let i = 0; i < n; i += 1) out.push(await admit(who, policy));
      return out;
    };

    describe('the minute window', () => {
      it('admits the plan’s 60 in a minute, counting Remaining down, then refuses the 61st', async () => {
        const decisions = await burst(61);
        assert.ok(decisions.slice(0, 60).every((d) => d.outcome === 'admitted'));
        assert.deepEqual(
          decisions.slice(0, 60).map((d) => d.remaining),
          Array.from({ length: 60 }, (_, i) => 59 - i),
        );
        assert.equal(decisions[0]?.limit, 60);
        const refused = decisions[60] as RateLimitDecision;
        assert.equal(refused.outcome, 'rate_limited');
        assert.equal(refused.remaining, 0);
        assert.ok(refused.retryAfterMs > 0 && refused.retryAfterMs <= 61_000, `retry after ${refused.retryAfterMs} ms`);
      });

      it('admits again once the requests have left the window, and not before', async () => {
        await burst(60);
        clock.advance(59_000);
        assert.equal((await admit(subject, FREE)).outcome, 'rate_limited');
        clock.advance(2_000);
        assert.equal((await admit(subject, FREE)).outcome, 'admitted');
      });

      it('tells when Remaining next rises and when to retry', async () => {
        const first = await admit(subject, FREE);
        // One request in the bucket of START counts until that bucket leaves the 61 counted ones.
        assert.equal(first.resetAtMs, START + 61_000);
        await burst(59);
        const refused = await admit(subject, FREE);
        assert.equal(refused.resetAtMs, START + refused.retryAfterMs);
        assert.equal(START + refused.retryAfterMs, START + 61_000);
      });

      it('uses no quota for refused requests', async () => {
        await burst(60);
        await burst(10);
        clock.advance(61_000);
        const after = await burst(60);
        assert.ok(after.every((d) => d.outcome === 'admitted'));
      });

      it('keeps subjects apart', async () => {
        await burst(60);
        assert.equal((await admit(`${subject}-other`, FREE)).outcome, 'admitted');
      });
    });

    describe('the day window', () => {
      it('binds as well: the day’s limit refuses even with minute quota left', async () => {
        const policy = rateLimitPolicy(1_000, 5);
        const decisions = await burst(6, subject, policy);
        assert.deepEqual(
          decisions.map((d) => d.outcome),
          [...Array(5).fill('admitted'), 'rate_limited'],
        );
        const refused = decisions[5] as RateLimitDecision;
        assert.equal(refused.limit, 5);
        assert.ok(
          refused.retryAfterMs >= 86_400_000 && refused.retryAfterMs <= 86_400_000 + 300_000,
          `retry after ${refused.retryAfterMs} ms`,
        );
      });

      it('reports the window nearest exhaustion in the headline, and both windows', async () => {
        const policy = rateLimitPolicy(60, 100);
        clock.advance(0);
        await burst(50, subject, policy);
        clock.advance(120_000);
        const d = await admit(subject, policy);
        assert.equal(d.limit, 100);
        assert.equal(d.remaining, 49);
        assert.deepEqual(
          d.windows.map((w) => [w.name, w.windowSeconds, w.limit, w.remaining]),
          [
            ['minute', 60, 60, 59],
            ['day', 86_400, 100, 49],
          ],
        );
      });
    });

    describe('limits given per call', () => {
      it('applies a new policy at once', async () => {
        await burst(60);
        const pro = PLAN_POLICIES.pro;
        assert.equal((await admit(subject, pro)).outcome, 'admitted');
        assert.equal((await admit(subject, pro)).remaining, 300 - 62);
      });
    });

    describe('bans', () => {
      it('bans for 5 minutes after 20 refusals within a minute, without counting while banned', async () => {
        await burst(60);
        const refusals = await burst(20);
        assert.ok(refusals.slice(0, 19).every((d) => d.outcome === 'rate_limited'));
        const banned = refusals[19] as RateLimitDecision;
        assert.equal(banned.outcome, 'key_banned');
        assert.equal(banned.retryAfterMs, 300_000);
        clock.advance(100_000);
        const during = await admit(subject, FREE);
        assert.equal(during.outcome, 'key_banned');
        assert.equal(during.retryAfterMs, 200_000);
        clock.advance(200_000);
        assert.equal((await admit(subject, FREE)).outcome, 'admitted');
      });

      it('lengthens a second ban within a day to 15 minutes, then 60', async () => {
        const banOnce = async (): Promise<RateLimitDecision> => {
          await burst(60);
          const refusals = await burst(20);
          return refusals[19] as RateLimitDecision;
        };
        assert.equal((await banOnce()).retryAfterMs, 300_000);
        clock.advance(300_000);
        assert.equal((await banOnce()).retryAfterMs, 900_000);
        clock.advance(900_000);
        assert.equal((await banOnce()).retryAfterMs, 3_600_000);
      });

      it('forgets refusals older than the strike window', async () => {
        await burst(60);
        await burst(19);
        clock.advance(61_000);
        await burst(60);
        const next = await admit(subject, FREE);
        assert.equal(next.outcome, 'rate_limited');
      });
    });

    describe('peeking without counting', () => {
      it('reads a subject never seen as holding nothing, and leaves no trace of it', async () => {
        const standing = await peek(subject, FREE);
        assert.equal(standing.nowMs, START);
        assert.equal(standing.bannedUntilMs, null);
        assert.deepEqual(
          standing.windows.map((w) => [w.name, w.limit, w.remaining, w.used, w.resetAtMs]),
          [
            ['minute', 60, 60, 0, START],
            ['day', 1_000, 1_000, 0, START],
          ],
        );
        assert.equal((await admit(subject, FREE)).remaining, 59);
      });

      it('reports the windows a decision at the same moment reports, and counts nothing itself', async () => {
        await burst(2);
        clock.advance(1_500);
        const last = await admit(subject, FREE);
        const first = await peek(subject, FREE);
        assert.deepEqual(await peek(subject, FREE), first);
        assert.deepEqual(
          first.windows.map(({ used: _used, ...w }) => w),
          last.windows,
        );
        assert.deepEqual(
          first.windows.map((w) => w.used),
          [3, 3],
        );
        assert.equal((await admit(subject, FREE)).remaining, last.remaining - 1);
      });

      it('drops what has left a window, as a decision would', async () => {
        await burst(5);
        clock.advance(61_000);
        const standing = await peek(subject, FREE);
        assert.deepEqual(
          standing.windows.map((w) => [w.name, w.used, w.remaining]),
          [
            ['minute', 0, 60],
            ['day', 5, 995],
          ],
        );
      });

      it('answers while the subject is refused, without a strike towards a ban', async () => {
        await burst(60);
        await burst(19);
        for (let i = 0; i < 30; i += 1) await peek(subject, FREE);
        const standing = await peek(subject, FREE);
        assertMatches(standing.windows[0], { remaining: 0, used: 60, resetAtMs: START + 61_000 });
        assert.equal(standing.bannedUntilMs, null);
        assert.equal((await admit(subject, FREE)).outcome, 'key_banned');
      });

      it('answers while the subject is banned, with the end of the ban', async () => {
        await burst(80);
        clock.advance(100_000);
        const standing = await peek(subject, FREE);
        assert.equal(standing.bannedUntilMs, START + 300_000);
        assertMatches(standing.windows[0], { used: 0, remaining: 60 });
        assert.equal((await admit(subject, FREE)).outcome, 'key_banned');
      });
    });

    describe('concurrency', () => {
      it('admits exactly the limit when 100 requests race', async () => {
        const decisions = await Promise.all(Array.from({ length: 100 }, () => admit(subject, FREE)));
        assert.equal(decisions.filter((d) => d.outcome === 'admitted').length, 60);
        assert.equal(new Set(decisions.filter((d) => d.outcome === 'admitted').map((d) => d.remaining)).size, 60);
      });
    });
  });
}
