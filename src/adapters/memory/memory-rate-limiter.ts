import type { Clock } from '../../application/ports/clock.js';
import type { RateLimiter } from '../../application/ports/rate-limiter.js';
import { type BanPolicy, DEFAULT_BAN_POLICY, isBanned } from '../../domain/ban.js';
import type { RateLimitPolicy } from '../../domain/plan.js';
import { admitRequest, newSubjectState, type RateLimitDecision, type SubjectState } from '../../domain/rate-limit.js';
import { DAY_WINDOW, expireBuckets, MINUTE_WINDOW } from '../../domain/sliding-window.js';

export interface MemoryRateLimiterOptions {
  readonly banPolicy?: BanPolicy;
  /** Forget idle subjects once this many are tracked, so that many addresses cannot exhaust memory. */
  readonly sweepAbove?: number;
}

/**
 * The sliding-window limiter in process memory: exact for one process, and the fallback of the Redis
 * limiter. Runs the domain's algorithm; JavaScript's single thread makes each decision atomic.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly subjects = new Map<string, SubjectState>();
  private readonly banPolicy: BanPolicy;
  private readonly sweepAbove: number;
  private nextSweepAt: number;

  constructor(
    private readonly clock: Clock,
    options: MemoryRateLimiterOptions = {},
  ) {
    this.banPolicy = options.banPolicy ?? DEFAULT_BAN_POLICY;
    this.sweepAbove = options.sweepAbove ?? 100_000;
    this.nextSweepAt = this.sweepAbove;
  }

  async admit(subject: string, policy: RateLimitPolicy): Promise<RateLimitDecision> {
    return this.admitNow(subject, policy);
  }

  /** The same decision without a promise, for callers that can use it synchronously. */
  admitNow(subject: string, policy: RateLimitPolicy): RateLimitDecision {
    const nowMs = this.clock.nowMs();
    let state = this.subjects.get(subject);
    if (state === undefined) {
      if (this.subjects.size >= this.nextSweepAt) this.sweep(nowMs);
      state = newSubjectState();
      this.subjects.set(subject, state);
    }
    return admitRequest(state, policy, this.banPolicy, nowMs);
  }

  /** How many subjects are tracked (for tests and metrics). */
  get size(): number {
    return this.subjects.size;
  }

  private sweep(nowMs: number): void {
    for (const [subject, state] of this.subjects) {
      expireBuckets(state.minute, MINUTE_WINDOW, nowMs);
      expireBuckets(state.day, DAY_WINDOW, nowMs);
      const idle = state.minute.total === 0 && state.day.total === 0 && state.ban.strikes.length === 0;
      const banMatters =
        isBanned(state.ban, nowMs) || nowMs - state.ban.lastBanAtMs < this.banPolicy.escalationWindowMs;
      if (idle && !banMatters) this.subjects.delete(subject);
    }
    // Sweep again only once the map has grown by half again, so sweeping stays amortised O(1).
    this.nextSweepAt = Math.max(this.sweepAbove, Math.ceil(this.subjects.size * 1.5));
  }
}
