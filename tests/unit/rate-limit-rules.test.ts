import { describe, expect, it } from 'vitest';
import { isBanned, newBanState, recordStrike } from '../../src/domain/ban.js';
import { LIMIT_MAX, rateLimitPolicy } from '../../src/domain/plan.js';
import { nearestExhaustion, type WindowReport } from '../../src/domain/rate-limit.js';
import { headlineOf } from '../../src/domain/rate-limit-standing.js';
import {
  countRequest,
  expireBuckets,
  MINUTE_WINDOW,
  newWindowCounter,
  nextRiseMs,
} from '../../src/domain/sliding-window.js';

const T0 = Date.UTC(2026, 0, 1);

describe('ban lengths', () => {
  // One refusal is a strike enough; bans of 10, 20 and 30 ms, escalating within a day.
  const policy = { strikes: 1, strikeWindowMs: 1_000, durationsMs: [10, 20, 30], escalationWindowMs: 86_400_000 };

  it('repeat the last length for every ban past the list within a day: the fourth ban lasts as long as the third', () => {
    const state = newBanState();
    const bans = [0, 100, 200, 300, 400].map((at) => {
      recordStrike(state, policy, T0 + at);
      return state.bannedUntilMs - (T0 + at);
    });
    expect(bans).toEqual([10, 20, 30, 30, 30]);
    expect(isBanned(state, T0 + 429)).toBe(true);
    expect(isBanned(state, T0 + 430)).toBe(false);
  });
});

describe('a window counter whose clock steps back', () => {
  it('counts in its own bucket again once every bucket it wrote has left the window', () => {
    const counter = newWindowCounter();
    countRequest(counter, MINUTE_WINDOW, T0 + 200_000);
    expireBuckets(counter, MINUTE_WINDOW, T0 + 300_000);
    expect(counter.total).toBe(0);
    // The clock steps back 200 s: with nothing left to keep in order, the request counts where it lies.
    expireBuckets(counter, MINUTE_WINDOW, T0 + 100_000);
    countRequest(counter, MINUTE_WINDOW, T0 + 100_000);
    expect(nextRiseMs(counter, MINUTE_WINDOW, 1, T0 + 100_000)).toBe(T0 + 100_000 + 61_000);
  });

  it('keeps counting in the newest bucket while a bucket it wrote still counts', () => {
    const counter = newWindowCounter();
    countRequest(counter, MINUTE_WINDOW, T0 + 200_000);
    expireBuckets(counter, MINUTE_WINDOW, T0 + 230_000);
    countRequest(counter, MINUTE_WINDOW, T0 + 100_000);
    expect(counter.total).toBe(2);
    expect(nextRiseMs(counter, MINUTE_WINDOW, 2, T0 + 100_000)).toBe(T0 + 200_000 + 61_000);
  });
});

describe('a rate-limit policy', () => {
  it('takes whole limits from 1 to LIMIT_MAX', () => {
    expect(rateLimitPolicy(1, LIMIT_MAX)).toEqual({ perMinute: 1, perDay: LIMIT_MAX });
    expect(rateLimitPolicy(LIMIT_MAX, 1)).toEqual({ perMinute: LIMIT_MAX, perDay: 1 });
  });

  it.each([0, -1, 1.5, LIMIT_MAX + 1, Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses a limit of %s per minute or per day',
    (limit) => {
      expect(() => rateLimitPolicy(limit, 1_000)).toThrow(/per-minute limit .* is not an integer from 1 to/);
      expect(() => rateLimitPolicy(60, limit)).toThrow(/per-day limit .* is not an integer from 1 to/);
    },
  );
});

describe('the window a client must watch', () => {
  const window = (name: string, remaining: number, resetAtMs: number): WindowReport => ({
    name,
    windowSeconds: 60,
    limit: 100,
    remaining,
    resetAtMs,
  });

  it('is the one with fewest remaining, wherever it stands in the list', () => {
    const minute = window('minute', 7, T0 + 1_000);
    const day = window('day', 3, T0);
    expect(nearestExhaustion([minute, day])).toBe(day);
    expect(nearestExhaustion([day, minute])).toBe(day);
  });

  it('of two with as many remaining, is the one whose remaining rises later, wherever it stands in the list', () => {
    const minute = window('minute', 5, T0 + 60_000);
    const day = window('day', 5, T0 + 3_600_000);
    expect(nearestExhaustion([minute, day])).toBe(day);
    expect(nearestExhaustion([day, minute])).toBe(day);
  });
});

describe('the headline of a standing', () => {
  const standing = (bannedUntilMs: number | null) => {
    const minute = { name: 'minute', windowSeconds: 60, limit: 60, remaining: 10, resetAtMs: T0 + 5_000, used: 50 };
    const day = { name: 'day', windowSeconds: 86_400, limit: 1_000, remaining: 900, resetAtMs: T0 + 9_000, used: 100 };
    return { nowMs: T0, windows: [minute, day] as const, bannedUntilMs };
  };

  it('is what an admitted request would report, while no ban runs', () => {
    expect(headlineOf(standing(null))).toMatchObject({
      outcome: 'admitted',
      limit: 60,
      remaining: 10,
      resetAtMs: T0 + 5_000,
      retryAfterMs: 0,
    });
  });

  it('reports nothing remaining until the ban ends, while one runs', () => {
    expect(headlineOf(standing(T0 + 300_000))).toMatchObject({
      outcome: 'key_banned',
      remaining: 0,
      resetAtMs: T0 + 300_000,
      retryAfterMs: 300_000,
    });
  });
});
