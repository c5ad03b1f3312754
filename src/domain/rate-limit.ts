import { type BanPolicy, type BanState, isBanned, newBanState, recordStrike } from './ban.js';
import type { RateLimitPolicy } from './plan.js';
import {
  countRequest,
  DAY_WINDOW,
  expireBuckets,
  MINUTE_WINDOW,
  newWindowCounter,
  nextRiseMs,
  remainingIn,
  type WindowCounter,
  type WindowSpec,
} from './sliding-window.js';

/** What one subject (a key, or an address without a valid key) has used. */
export interface SubjectState {
  readonly minute: WindowCounter;
  readonly day: WindowCounter;
  readonly ban: BanState;
}

export const newSubjectState = (): SubjectState => ({
  minute: newWindowCounter(),
  day: newWindowCounter(),
  ban: newBanState(),
});

/** Where one window stands after a decision. */
export interface WindowReport {
  readonly name: string;
  readonly windowSeconds: number;
  readonly limit: number;
  readonly remaining: number;
  /** Unix milliseconds when `remaining` next rises. */
  readonly resetAtMs: number;
}

export type RateLimitOutcome = 'admitted' | 'rate_limited' | 'key_banned';

/**
 * The limiter's answer for one request. `limit`, `remaining` and `resetAtMs` are those of the window
 * nearest exhaustion (the one a client must watch); `windows` has both.
 */
export interface RateLimitDecision {
  readonly outcome: RateLimitOutcome;
  readonly limit: number;
  readonly remaining: number;
  readonly resetAtMs: number;
  /** 0 when admitted; otherwise how long until a request can be admitted again. */
  readonly retryAfterMs: number;
  readonly windows: readonly WindowReport[];
}

/** Picks the window a client must watch: fewest remaining, and of equals the one that rises later. */
export function nearestExhaustion(windows: readonly WindowReport[]): WindowReport {
  let nearest = windows[0] as WindowReport;
  for (const w of windows) {
    if (w.remaining < nearest.remaining || (w.remaining === nearest.remaining && w.resetAtMs > nearest.resetAtMs)) {
      nearest = w;
    }
  }
  return nearest;
}

/**
 * Builds a decision from its window reports; the single place the headline window is chosen. A refused
 * request reports nothing remaining until it can be admitted again.
 */
export function decision(
  outcome: RateLimitOutcome,
  windows: readonly WindowReport[],
  nowMs: number,
  retryAfterMs: number,
): RateLimitDecision {
  const nearest = nearestExhaustion(windows);
  if (outcome === 'admitted') {
    return {
      outcome,
      limit: nearest.limit,
      remaining: nearest.remaining,
      resetAtMs: nearest.resetAtMs,
      retryAfterMs: 0,
      windows,
    };
  }
  return { outcome, limit: nearest.limit, remaining: 0, resetAtMs: nowMs + retryAfterMs, retryAfterMs, windows };
}

/**
 * When a refused request could be admitted: a full window admits again once enough of its old buckets
 * leave it, and the later of the full windows rules.
 */
export function retryAtMs(windows: readonly WindowReport[], nowMs: number): number {
  let at = nowMs;
  for (const w of windows) if (w.remaining === 0) at = Math.max(at, w.resetAtMs);
  return at;
}

/** Where a window stands at `nowMs`: its limit, what remains and when that rises. Call `expireBuckets` first. */
export function report(counter: WindowCounter, spec: WindowSpec, limit: number, nowMs: number): WindowReport {
  return {
    name: spec.name,
    windowSeconds: spec.windowMs / 1000,
    limit,
    remaining: remainingIn(counter, limit),
    resetAtMs: nextRiseMs(counter, spec, limit, nowMs),
  };
}

/**
 * Decides one request of a subject at `nowMs` and updates its state: a banned subject is refused
 * without counting; otherwise the request is admitted only if both windows have room, and counted in
 * both. A refusal uses no quota, but counts as a strike towards a ban.
 */
export function admitRequest(
  state: SubjectState,
  policy: RateLimitPolicy,
  banPolicy: BanPolicy,
  nowMs: number,
): RateLimitDecision {
  expireBuckets(state.minute, MINUTE_WINDOW, nowMs);
  expireBuckets(state.day, DAY_WINDOW, nowMs);
  const minuteLimit = policy.perMinute;
  const dayLimit = policy.perDay;

  if (isBanned(state.ban, nowMs)) {
    const windows = [
      report(state.minute, MINUTE_WINDOW, minuteLimit, nowMs),
      report(state.day, DAY_WINDOW, dayLimit, nowMs),
    ];
    return decision('key_banned', windows, nowMs, state.ban.bannedUntilMs - nowMs);
  }

  if (state.minute.total < minuteLimit && state.day.total < dayLimit) {
    countRequest(state.minute, MINUTE_WINDOW, nowMs);
    countRequest(state.day, DAY_WINDOW, nowMs);
    const windows = [
      report(state.minute, MINUTE_WINDOW, minuteLimit, nowMs),
      report(state.day, DAY_WINDOW, dayLimit, nowMs),
    ];
    return decision('admitted', windows, nowMs, 0);
  }

  const windows = [
    report(state.minute, MINUTE_WINDOW, minuteLimit, nowMs),
    report(state.day, DAY_WINDOW, dayLimit, nowMs),
  ];
  if (recordStrike(state.ban, banPolicy, nowMs)) {
    return decision('key_banned', windows, nowMs, state.ban.bannedUntilMs - nowMs);
  }
  return decision('rate_limited', windows, nowMs, retryAtMs(windows, nowMs) - nowMs);
}
