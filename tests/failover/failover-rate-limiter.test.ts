import { Writable } from 'node:stream';
import { pino } from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { FailoverRateLimiter } from '../../src/adapters/failover/failover-rate-limiter.js';
import { UnavailableRateLimiter } from '../../src/adapters/failover/unavailable-rate-limiter.js';
import type { RateLimitAnswer, RateLimiter, RateLimitPeek } from '../../src/application/ports/rate-limiter.js';
import { PLAN_POLICIES } from '../../src/domain/plan.js';
import { newSubjectState, type RateLimitDecision } from '../../src/domain/rate-limit.js';
import { type RateLimitStanding, standingOf } from '../../src/domain/rate-limit-standing.js';
import { ManualClock } from '../../src/testing/index.js';
import { RecordingLogger } from '../support/recording-logger.js';

const FREE = PLAN_POLICIES.free;
const COOL_DOWN_MS = 1_000;

const answer = (limit: number): RateLimitDecision => ({
  outcome: 'admitted',
  limit,
  remaining: limit - 1,
  resetAtMs: 0,
  retryAfterMs: 0,
  windows: [],
});
// The two limiters answer with different limits, so a test sees which one decided.
const SHARED = answer(60);
const LOCAL = answer(1);
const standing = (limit: number): RateLimitStanding =>
  standingOf(newSubjectState(), { perMinute: limit, perDay: limit }, 0);
const SHARED_STANDING = standing(60);
const LOCAL_STANDING = standing(1);

/** A shared limiter that fails on demand (throwing, or answering that it cannot decide), or holds its answer until released. */
class FlakyLimiter implements RateLimiter {
  failing = false;
  undecided = false;
  calls = 0;
  private held: (() => void)[] = [];
  holding = false;

  async admit(): Promise<RateLimitAnswer> {
    this.calls += 1;
    if (this.holding) await new Promise<void>((resolve) => this.held.push(resolve));
    if (this.failing) throw new Error('connection lost');
    if (this.undecided) return { outcome: 'unavailable', reason: 'its own store is down' };
    return SHARED;
  }

  async peek(): Promise<RateLimitPeek> {
    this.calls += 1;
    if (this.failing) throw new Error('connection lost');
    if (this.undecided) return { outcome: 'unavailable', reason: 'its own store is down' };
    return SHARED_STANDING;
  }

  release(): void {
    this.holding = false;
    for (const resolve of this.held.splice(0)) resolve();
  }
}

class CountingLimiter implements RateLimiter {
  calls = 0;
  async admit(): Promise<RateLimitDecision> {
    this.calls += 1;
    return LOCAL;
  }

  async peek(): Promise<RateLimitStanding> {
    this.calls += 1;
    return LOCAL_STANDING;
  }
}

describe('FailoverRateLimiter', () => {
  let clock: ManualClock;
  let shared: FlakyLimiter;
  let local: CountingLimiter;
  let logger: RecordingLogger;
  let limiter: FailoverRateLimiter;
  beforeEach(() => {
    clock = new ManualClock();
    shared = new FlakyLimiter();
    local = new CountingLimiter();
    logger = new RecordingLogger();
    limiter = new FailoverRateLimiter(shared, local, clock, { coolDownMs: COOL_DOWN_MS, logger });
  });

  const admitMany = (n: number) => Promise.all(Array.from({ length: n }, () => limiter.admit('key:a', FREE)));

  describe('while the shared limiter answers', () => {
    it('passes every decision through and reports healthy', async () => {
      expect(await admitMany(3)).toEqual([SHARED, SHARED, SHARED]);
      expect(limiter.status()).toEqual({
        healthy: true,
        circuit: 'closed',
        failures: 0,
        fallbackDecisions: 0,
        unavailable: 0,
      });
      expect(local.calls).toBe(0);
    });
  });

  describe('peeking at a standing', () => {
    it('reads the shared limiter while it answers, the fallback while it fails, and opens the circuit', async () => {
      expect(await limiter.peek('key:a', FREE)).toEqual(SHARED_STANDING);
      shared.failing = true;
      expect(await limiter.peek('key:a', FREE)).toEqual(LOCAL_STANDING);
      expect(limiter.status()).toMatchObject({ healthy: false, circuit: 'open', failures: 1 });
      expect(await limiter.peek('key:a', FREE)).toEqual(LOCAL_STANDING);
      expect(shared.calls).toBe(2);
      clock.advance(COOL_DOWN_MS);
      shared.failing = false;
      expect(await limiter.peek('key:a', FREE)).toEqual(SHARED_STANDING);
      expect(limiter.healthy()).toBe(true);
    });

    it('takes a store that cannot read for now as a failure, and answers unavailable when failing closed', async () => {
      shared.undecided = true;
      const closed = new FailoverRateLimiter(shared, new UnavailableRateLimiter(), clock, { coolDownMs: COOL_DOWN_MS });
      expect(await closed.peek('key:a', FREE)).toMatchObject({ outcome: 'unavailable' });
      expect(closed.healthy()).toBe(false);
    });
  });

  describe('failing open (an in-process fallback)', () => {
    it('decides in process after a failure, skips the shared limiter during the cool-down, logs once', async () => {
      shared.failing = true;
      expect(await limiter.admit('key:a', FREE)).toEqual(LOCAL);
      clock.advance(COOL_DOWN_MS - 1);
      expect(await admitMany(4)).toEqual([LOCAL, LOCAL, LOCAL, LOCAL]);
      expect(shared.calls).toBe(1);
      expect(limiter.status()).toMatchObject({ healthy: false, circuit: 'open', failures: 1, fallbackDecisions: 5 });
      expect(logger.lines.map((l) => [l.level, l.msg])).toEqual([
        ['warn', 'shared rate limiter failed: its fallback answers until it is back'],
      ]);
    });

    it('probes the shared limiter once the cool-down is over, and uses it again when it answers', async () => {
      shared.failing = true;
      await limiter.admit('key:a', FREE);
      await limiter.admit('key:a', FREE);
      clock.advance(COOL_DOWN_MS);
      shared.failing = false;
      expect(await limiter.admit('key:a', FREE)).toEqual(SHARED);
      expect(await limiter.admit('key:a', FREE)).toEqual(SHARED);
      expect(limiter.healthy()).toBe(true);
      expect(logger.lines[1]).toEqual({
        level: 'info',
        obj: { outageMs: COOL_DOWN_MS, failures: 1, fallbackDecisions: 2, unavailable: 0 },
        msg: 'shared rate limiter answers again',
      });
    });

    it('waits another cool-down when the probe fails, without logging the outage again', async () => {
      shared.failing = true;
      await limiter.admit('key:a', FREE);
      clock.advance(COOL_DOWN_MS);
      expect(await limiter.admit('key:a', FREE)).toEqual(LOCAL);
      expect(await limiter.admit('key:a', FREE)).toEqual(LOCAL);
      expect(shared.calls).toBe(2);
      expect(limiter.status()).toMatchObject({ circuit: 'open', failures: 2, fallbackDecisions: 3 });
      expect(logger.lines).toHaveLength(1);
    });

    it('gives the answers the shared limiter holds in process in every state, and never as a probe', async () => {
      const banned = { ...SHARED, outcome: 'key_banned' as const, retryAfterMs: 60_000 };
      const knowing = Object.assign(shared, {
        answerLocally: (subject: string) => (subject === 'key:banned' ? banned : undefined),
      });
      const withBans = new FailoverRateLimiter(knowing, local, clock, { coolDownMs: COOL_DOWN_MS });
      shared.failing = true;
      expect(await withBans.admit('key:a', FREE)).toEqual(LOCAL);
      expect(await withBans.admit('key:banned', FREE)).toEqual(banned);
      clock.advance(COOL_DOWN_MS);
      expect(await withBans.admit('key:banned', FREE)).toEqual(banned);
      expect(withBans.status()).toMatchObject({ circuit: 'open', failures: 1, fallbackDecisions: 1 });
      shared.failing = false;
      expect(await withBans.admit('key:a', FREE)).toEqual(SHARED);
      expect(withBans.healthy()).toBe(true);
      expect(shared.calls).toBe(2);
    });

    it('lets one probe through at a time; the others keep to the fallback meanwhile', async () => {
      shared.failing = true;
      await limiter.admit('key:a', FREE);
      clock.advance(COOL_DOWN_MS);
      shared.failing = false;
      shared.holding = true;
      const probe = limiter.admit('key:a', FREE);
      expect(limiter.status().circuit).toBe('half-open');
      expect(await admitMany(3)).toEqual([LOCAL, LOCAL, LOCAL]);
      shared.release();
      expect(await probe).toEqual(SHARED);
      expect(shared.calls).toBe(2);
      expect(limiter.healthy()).toBe(true);
    });
  });

  describe('failing closed (an UnavailableRateLimiter fallback)', () => {
    it('answers unavailable, counted as such, while the shared limiter fails, and decides again after', async () => {
      const closed = new FailoverRateLimiter(shared, new UnavailableRateLimiter(), clock, {
        coolDownMs: COOL_DOWN_MS,
        logger,
      });
      shared.failing = true;
      const answers = [await closed.admit('key:a', FREE), await closed.admit('key:a', FREE)];
      expect(answers.map((a) => a.outcome)).toEqual(['unavailable', 'unavailable']);
      expect(closed.status()).toMatchObject({ healthy: false, failures: 1, fallbackDecisions: 0, unavailable: 2 });
      clock.advance(COOL_DOWN_MS);
      shared.failing = false;
      expect(await closed.admit('key:a', FREE)).toEqual(SHARED);
      expect(logger.lines[1]?.obj).toEqual({
        outageMs: COOL_DOWN_MS,
        failures: 1,
        fallbackDecisions: 0,
        unavailable: 2,
      });
    });
  });

  describe('a shared limiter that answers it cannot decide', () => {
    it('is taken as failed: the fallback decides and the circuit opens, as for a thrown failure', async () => {
      shared.undecided = true;
      expect(await limiter.admit('key:a', FREE)).toEqual(LOCAL);
      expect(await limiter.admit('key:a', FREE)).toEqual(LOCAL);
      expect(shared.calls).toBe(1);
      expect(limiter.status()).toMatchObject({ circuit: 'open', failures: 1, fallbackDecisions: 2 });
      expect(logger.lines[0]?.obj).toMatchObject({ err: new Error('its own store is down') });
    });
  });

  it('writes the outage and its end through a pino logger', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logged = new FailoverRateLimiter(shared, local, clock, {
      logger: pino({ base: null, timestamp: false }, sink),
    });
    shared.failing = true;
    await logged.admit('key:a', FREE);
    clock.advance(1_000);
    shared.failing = false;
    await logged.admit('key:a', FREE);
    const records = lines.map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message: string } });
    expect(records.map((r) => [r.level, r.msg])).toEqual([
      [40, 'shared rate limiter failed: its fallback answers until it is back'],
      [30, 'shared rate limiter answers again'],
    ]);
    expect(records[0]?.err?.message).toBe('connection lost');
  });

  it('refuses a cool-down that is not a whole number of milliseconds', () => {
    expect(() => new FailoverRateLimiter(shared, local, clock, { coolDownMs: -1 })).toThrow(RangeError);
  });
});
