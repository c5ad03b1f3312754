import type { Clock } from '../../application/ports/clock.js';
import type { RateLimiter } from '../../application/ports/rate-limiter.js';
import { type BanPolicy, DEFAULT_BAN_POLICY, isBanned } from '../../domain/ban.js';
import type { RateLimitPolicy } from '../../domain/plan.js';
import { admitRequest, newSubjectState, type RateLimitDecision, type SubjectState } from '../../domain/rate-limit.js';
import { type RateLimitStanding, standingOf } from '../../domain/rate-limit-standing.js';
import { DAY_WINDOW, expireBuckets, MINUTE_WINDOW } from '../../domain/sliding-window.js';
import { type LimiterSubjectRecord, readSubjectState, writeSubjectState } from './memory-limiter-snapshot.js';

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

  async peek(subject: string, policy: RateLimitPolicy): Promise<RateLimitStanding> {
    // A subject never seen is read from a fresh state and not kept: a peek leaves no trace.
    return standingOf(this.subjects.get(subject) ?? newSubjectState(), policy, this.clock.nowMs());
  }

  /** How many subjects are tracked (for tests and metrics). */
  get size(): number {
    return this.subjects.size;
  }

  /**
   * The state of every subject that still matters now (counted requests, a ban, or a ban recent enough
   * to escalate the next), as records to store across a restart. Pass them to {@link restore} of the
   * next process.
   */
  serialise(): LimiterSubjectRecord[] {
    const nowMs = this.clock.nowMs();
    const records: LimiterSubjectRecord[] = [];
    for (const [subject, state] of this.subjects) {
      if (this.matters(state, nowMs)) records.push({ subject, state: writeSubjectState(state) });
    }
    return records;
  }

  /**
   * Takes over the subjects of a snapshot made by {@link serialise}, replacing what this limiter knows
   * of them. A record that cannot be read is skipped (that subject starts afresh) and counted.
   */
  restore(records: Iterable<LimiterSubjectRecord>): { readonly restored: number; readonly skipped: number } {
    const nowMs = this.clock.nowMs();
    let restored = 0;
    let skipped = 0;
    for (const record of records) {
      const state = readSubjectState(record.state);
      if (state === undefined) skipped += 1;
      else if (this.matters(state, nowMs)) {
        this.subjects.set(record.subject, state);
        restored += 1;
      }
    }
    this.nextSweepAt = Math.max(this.sweepAbove, Math.ceil(this.subjects.size * 1.5));
    return { restored, skipped };
  }

  /** Expires the subject's old buckets and says whether anything of it is left worth keeping. */
  private matters(state: SubjectState, nowMs: number): boolean {
    expireBuckets(state.minute, MINUTE_WINDOW, nowMs);
    expireBuckets(state.day, DAY_WINDOW, nowMs);
    const idle = state.minute.total === 0 && state.day.total === 0 && state.ban.strikes.length === 0;
    const banMatters = isBanned(state.ban, nowMs) || nowMs - state.ban.lastBanAtMs < this.banPolicy.escalationWindowMs;
    return !idle || banMatters;
  }

  private sweep(nowMs: number): void {
    for (const [subject, state] of this.subjects) {
      if (!this.matters(state, nowMs)) this.subjects.delete(subject);
    }
    // Sweep again only once the map has grown by half again, so sweeping stays amortised O(1).
    this.nextSweepAt = Math.max(this.sweepAbove, Math.ceil(this.subjects.size * 1.5));
  }
}
