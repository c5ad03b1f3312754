import { describe, expect, it } from 'vitest';
import { banPolicy, DEFAULT_BAN_POLICY, newBanState, recordStrike } from '../../src/domain/ban.js';
import { rateLimitPolicy } from '../../src/domain/plan.js';
import { admitRequest, nearestExhaustion, newSubjectState } from '../../src/domain/rate-limit.js';
import {
  countRequest,
  DAY_WINDOW,
  expireBuckets,
  MINUTE_WINDOW,
  newWindowCounter,
  nextRiseMs,
} from '../../src/domain/sliding-window.js';

const T0 = Date.UTC(2026, 0, 1);

describe('a window counter', () => {
  it('keeps at most B+1 buckets, whatever the number of requests', () => {
    const counter = newWindowCounter();
    for (let t = T0; t < T0 + 10 * 60_000; t += 250) {
      expireBuckets(counter, MINUTE_WINDOW, t);
      countRequest(counter, MINUTE_WINDOW, t);
    }
    expect(counter.buckets.size).toBe(61);
    expect(counter.total).toBe(61 * 4);
  });

  it('tells when Remaining next rises: when the oldest counted bucket leaves', () => {
    const counter = newWindowCounter();
    countRequest(counter, MINUTE_WINDOW, T0 + 1_500);
    countRequest(counter, MINUTE_WINDOW, T0 + 30_000);
    expect(nextRiseMs(counter, MINUTE_WINDOW, 10, T0 + 30_000)).toBe(T0 + 1_000 + 61_000);
  });

  it('tells when a full window admits again: when enough buckets have left it', () => {
    const counter = newWindowCounter();
    countRequest(counter, MINUTE_WINDOW, T0);
    countRequest(counter, MINUTE_WINDOW, T0 + 10_000);
    countRequest(counter, MINUTE_WINDOW, T0 + 20_000);
    // Limit 2, 3 counted (the limit was lowered): two buckets must leave before one more fits.
    expect(nextRiseMs(counter, MINUTE_WINDOW, 2, T0 + 20_000)).toBe(T0 + 10_000 + 61_000);
  });

  it('counts a request in the newest bucket when the clock steps back', () => {
    const counter = newWindowCounter();
    countRequest(counter, MINUTE_WINDOW, T0 + 5_000);
    countRequest(counter, MINUTE_WINDOW, T0 + 1_000);
    expect([...counter.buckets.keys()]).toEqual([(T0 + 5_000) / 1_000]);
    expect(counter.total).toBe(2);
  });
});

describe('a decision over both windows', () => {
  it('reports the window nearest exhaustion, and of equals the one that rises later', () => {
    const a = { name: 'minute', windowSeconds: 60, limit: 60, remaining: 5, resetAtMs: 10 };
    const b = { name: 'day', windowSeconds: 86_400, limit: 1_000, remaining: 5, resetAtMs: 20 };
    expect(nearestExhaustion([a, b])).toBe(b);
    expect(nearestExhaustion([a, { ...b, remaining: 6 }])).toBe(a);
  });

  it('rounds nothing: Retry-After of a day-window refusal is the wait for its oldest bucket', () => {
    const state = newSubjectState();
    const policy = rateLimitPolicy(100, 2);
    admitRequest(state, policy, DEFAULT_BAN_POLICY, T0);
    admitRequest(state, policy, DEFAULT_BAN_POLICY, T0 + 3_600_000);
    const refused = admitRequest(state, policy, DEFAULT_BAN_POLICY, T0 + 7_200_000);
    expect(refused.outcome).toBe('rate_limited');
    expect(refused.limit).toBe(2);
    expect(refused.retryAfterMs).toBe(T0 + DAY_WINDOW.windowMs + DAY_WINDOW.bucketMs - (T0 + 7_200_000));
  });
});

describe('bans', () => {
  it('come with the 20th refusal within 60 s, not the 19th', () => {
    const state = newBanState();
    for (let i = 0; i < 19; i += 1) expect(recordStrike(state, DEFAULT_BAN_POLICY, T0 + i)).toBe(false);
    expect(recordStrike(state, DEFAULT_BAN_POLICY, T0 + 19)).toBe(true);
    expect(state.bannedUntilMs).toBe(T0 + 19 + 300_000);
  });

  it('do not come from refusals spread wider than 60 s', () => {
    const state = newBanState();
    for (let i = 0; i < 40; i += 1) expect(recordStrike(state, DEFAULT_BAN_POLICY, T0 + i * 4_000)).toBe(false);
  });

  it('start again at 5 minutes once a day has passed since the last ban', () => {
    const state = newBanState();
    const strikeOut = (at: number): void => {
      for (let i = 0; i < 20; i += 1) recordStrike(state, DEFAULT_BAN_POLICY, at);
    };
    strikeOut(T0);
    strikeOut(T0 + 3_600_000);
    expect(state.bannedUntilMs - (T0 + 3_600_000)).toBe(900_000);
    strikeOut(T0 + 3_600_000 + 86_400_000);
    expect(state.bannedUntilMs - (T0 + 3_600_000 + 86_400_000)).toBe(300_000);
  });

  it('refuse a policy that could never work', () => {
    expect(() => banPolicy({ ...DEFAULT_BAN_POLICY, durationsMs: [] })).toThrow(RangeError);
    expect(() => banPolicy({ ...DEFAULT_BAN_POLICY, strikes: 0 })).toThrow(RangeError);
    expect(banPolicy(DEFAULT_BAN_POLICY)).toBe(DEFAULT_BAN_POLICY);
  });
});
