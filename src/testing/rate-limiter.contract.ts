import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RateLimiter } from '../application/ports/rate-limiter.js';
import { type BanPolicy, DEFAULT_BAN_POLICY } from '../domain/ban.js';
import { PLAN_POLICIES, type RateLimitPolicy, rateLimitPolicy } from '../domain/plan.js';
import type { RateLimitDecision } from '../domain/rate-limit.js';
import type { RateLimitStanding } from '../domain/rate-limit-standing.js';
import { ManualClock } from './manual-clock.js';

export interface LimiterFixture {
  readonly limiter: RateLimiter;
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

/** The RateLimiter contract, run over every limiter adapter. */
export function describeRateLimiterContract(adapter: string, make: MakeLimiter): void {
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
        expect(decisions.slice(0, 60).every((d) => d.outcome === 'admitted')).toBe(true);
        expect(decisions.slice(0, 60).map((d) => d.remaining)).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i));
        expect(decisions[0]?.limit).toBe(60);
        const refused = decisions[60] as RateLimitDecision;
        expect(refused.outcome).toBe('rate_limited');
        expect(refused.remaining).toBe(0);
        expect(refused.retryAfterMs).toBeGreaterThan(0);
        expect(refused.retryAfterMs).toBeLessThanOrEqual(61_000);
      });

      it('admits again once the requests have left the window, and not before', async () => {
        await burst(60);
        clock.advance(59_000);
        expect((await admit(subject, FREE)).outcome).toBe('rate_limited');
        clock.advance(2_000);
        expect((await admit(subject, FREE)).outcome).toBe('admitted');
      });

      it('tells when Remaining next rises and when to retry', async () => {
        const first = await admit(subject, FREE);
        // One request in the bucket of START counts until that bucket leaves the 61 counted ones.
        expect(first.resetAtMs).toBe(START + 61_000);
        await burst(59);
        const refused = await admit(subject, FREE);
        expect(refused.resetAtMs).toBe(START + refused.retryAfterMs);
        expect(START + refused.retryAfterMs).toBe(START + 61_000);
      });

      it('uses no quota for refused requests', async () => {
        await burst(60);
        await burst(10);
        clock.advance(61_000);
        const after = await burst(60);
        expect(after.every((d) => d.outcome === 'admitted')).toBe(true);
      });

      it('keeps subjects apart', async () => {
        await burst(60);
        expect((await admit(`${subject}-other`, FREE)).outcome).toBe('admitted');
      });
    });

    describe('the day window', () => {
      it('binds as well: the day’s limit refuses even with minute quota left', async () => {
        const policy = rateLimitPolicy(1_000, 5);
        const decisions = await burst(6, subject, policy);
        expect(decisions.map((d) => d.outcome)).toEqual([...Array(5).fill('admitted'), 'rate_limited']);
        const refused = decisions[5] as RateLimitDecision;
        expect(refused.limit).toBe(5);
        expect(refused.retryAfterMs).toBeGreaterThan(86_400_000 - 1);
        expect(refused.retryAfterMs).toBeLessThanOrEqual(86_400_000 + 300_000);
      });

      it('reports the window nearest exhaustion in the headline, and both windows', async () => {
        const policy = rateLimitPolicy(60, 100);
        clock.advance(0);
        await burst(50, subject, policy);
        clock.advance(120_000);
        const d = await admit(subject, policy);
        expect(d.limit).toBe(100);
        expect(d.remaining).toBe(49);
        expect(d.windows.map((w) => [w.name, w.windowSeconds, w.limit, w.remaining])).toEqual([
          ['minute', 60, 60, 59],
          ['day', 86_400, 100, 49],
        ]);
      });
    });

    describe('limits given per call', () => {
      it('applies a new policy at once', async () => {
        await burst(60);
        const pro = PLAN_POLICIES.pro;
        expect((await admit(subject, pro)).outcome).toBe('admitted');
        expect((await admit(subject, pro)).remaining).toBe(300 - 62);
      });
    });

    describe('bans', () => {
      it('bans for 5 minutes after 20 refusals within a minute, without counting while banned', async () => {
        await burst(60);
        const refusals = await burst(20);
        expect(refusals.slice(0, 19).every((d) => d.outcome === 'rate_limited')).toBe(true);
        const banned = refusals[19] as RateLimitDecision;
        expect(banned.outcome).toBe('key_banned');
        expect(banned.retryAfterMs).toBe(300_000);
        clock.advance(100_000);
        const during = await admit(subject, FREE);
        expect(during.outcome).toBe('key_banned');
        expect(during.retryAfterMs).toBe(200_000);
        clock.advance(200_000);
        expect((await admit(subject, FREE)).outcome).toBe('admitted');
      });

      it('lengthens a second ban within a day to 15 minutes, then 60', async () => {
        const banOnce = async (): Promise<RateLimitDecision> => {
          await burst(60);
          const refusals = await burst(20);
          return refusals[19] as RateLimitDecision;
        };
        expect((await banOnce()).retryAfterMs).toBe(300_000);
        clock.advance(300_000);
        expect((await banOnce()).retryAfterMs).toBe(900_000);
        clock.advance(900_000);
        expect((await banOnce()).retryAfterMs).toBe(3_600_000);
      });

      it('forgets refusals older than the strike window', async () => {
        await burst(60);
        await burst(19);
        clock.advance(61_000);
        await burst(60);
        const next = await admit(subject, FREE);
        expect(next.outcome).toBe('rate_limited');
      });
    });

    describe('peeking without counting', () => {
      it('reads a subject never seen as holding nothing, and leaves no trace of it', async () => {
        const standing = await peek(subject, FREE);
        expect(standing.nowMs).toBe(START);
        expect(standing.bannedUntilMs).toBeNull();
        expect(standing.windows.map((w) => [w.name, w.limit, w.remaining, w.used, w.resetAtMs])).toEqual([
          ['minute', 60, 60, 0, START],
          ['day', 1_000, 1_000, 0, START],
        ]);
        expect((await admit(subject, FREE)).remaining).toBe(59);
      });

      it('reports the windows a decision at the same moment reports, and counts nothing itself', async () => {
        await burst(2);
        clock.advance(1_500);
        const last = await admit(subject, FREE);
        const first = await peek(subject, FREE);
        expect(await peek(subject, FREE)).toEqual(first);
        expect(first.windows.map(({ used: _used, ...w }) => w)).toEqual(last.windows);
        expect(first.windows.map((w) => w.used)).toEqual([3, 3]);
        expect((await admit(subject, FREE)).remaining).toBe(last.remaining - 1);
      });

      it('drops what has left a window, as a decision would', async () => {
        await burst(5);
        clock.advance(61_000);
        const standing = await peek(subject, FREE);
        expect(standing.windows.map((w) => [w.name, w.used, w.remaining])).toEqual([
          ['minute', 0, 60],
          ['day', 5, 995],
        ]);
      });

      it('answers while the subject is refused, without a strike towards a ban', async () => {
        await burst(60);
        await burst(19);
        for (let i = 0; i < 30; i += 1) await peek(subject, FREE);
        const standing = await peek(subject, FREE);
        expect(standing.windows[0]).toMatchObject({ remaining: 0, used: 60, resetAtMs: START + 61_000 });
        expect(standing.bannedUntilMs).toBeNull();
        expect((await admit(subject, FREE)).outcome).toBe('key_banned');
      });

      it('answers while the subject is banned, with the end of the ban', async () => {
        await burst(80);
        clock.advance(100_000);
        const standing = await peek(subject, FREE);
        expect(standing.bannedUntilMs).toBe(START + 300_000);
        expect(standing.windows[0]).toMatchObject({ used: 0, remaining: 60 });
        expect((await admit(subject, FREE)).outcome).toBe('key_banned');
      });
    });

    describe('concurrency', () => {
      it('admits exactly the limit when 100 requests race', async () => {
        const decisions = await Promise.all(Array.from({ length: 100 }, () => admit(subject, FREE)));
        expect(decisions.filter((d) => d.outcome === 'admitted')).toHaveLength(60);
        expect(new Set(decisions.filter((d) => d.outcome === 'admitted').map((d) => d.remaining)).size).toBe(60);
      });
    });
  });
}
