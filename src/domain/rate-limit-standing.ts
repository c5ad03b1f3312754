import { isBanned } from './ban.js';
import type { RateLimitPolicy } from './plan.js';
import { decision, type RateLimitDecision, report, type SubjectState, type WindowReport } from './rate-limit.js';
import { DAY_WINDOW, expireBuckets, MINUTE_WINDOW, type WindowCounter, type WindowSpec } from './sliding-window.js';

/** Where one window stands, with how many requests it holds now. */
export interface WindowStanding extends WindowReport {
  readonly used: number;
}

/**
 * Where a subject stands under its limits, read without counting anything: both windows (minute, then
 * day) and the end of a ban, if one holds at `nowMs`.
 */
export interface RateLimitStanding {
  readonly nowMs: number;
  readonly windows: readonly [WindowStanding, WindowStanding];
  /** Unix ms when the ban ends; null when none holds. */
  readonly bannedUntilMs: number | null;
}

function standingIn(counter: WindowCounter, spec: WindowSpec, limit: number, nowMs: number): WindowStanding {
  expireBuckets(counter, spec, nowMs);
  return { ...report(counter, spec, limit, nowMs), used: counter.total };
}

/**
 * Reads a subject's standing at `nowMs`. It counts nothing and strikes nothing; it only drops the
 * buckets that have left the windows, which any later decision would drop first too.
 */
export function standingOf(state: SubjectState, policy: RateLimitPolicy, nowMs: number): RateLimitStanding {
  return {
    nowMs,
    windows: [
      standingIn(state.minute, MINUTE_WINDOW, policy.perMinute, nowMs),
      standingIn(state.day, DAY_WINDOW, policy.perDay, nowMs),
    ],
    bannedUntilMs: isBanned(state.ban, nowMs) ? state.ban.bannedUntilMs : null,
  };
}

/**
 * The headline a standing gives for the rate-limit headers: what a decision at the same moment would
 * report, without being one. While banned, nothing remains until the ban ends, as a refusal reports.
 */
export function headlineOf(standing: RateLimitStanding): RateLimitDecision {
  const { nowMs, windows, bannedUntilMs } = standing;
  if (bannedUntilMs !== null) return decision('key_banned', windows, nowMs, bannedUntilMs - nowMs);
  return decision('admitted', windows, nowMs, 0);
}
