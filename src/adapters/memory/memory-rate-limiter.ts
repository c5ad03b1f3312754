import type { Clock } from '../../application/ports/clock.js';
import type { RateLimiter } from '../../application/ports/rate-limiter.js';
import { KEY_SUBJECT_PREFIX } from '../../domain/api-key.js';
import { type BanPolicy, type BanState, DEFAULT_BAN_POLICY, isBanned } from '../../domain/ban.js';
import type { RateLimitPolicy } from '../../domain/plan.js';
import { admitRequest, newSubjectState, type RateLimitDecision, type SubjectState } from '../../domain/rate-limit.js';
import { type RateLimitStanding, standingOf } from '../../domain/rate-limit-standing.js';
import { DAY_WINDOW, expireBuckets, MINUTE_WINDOW } from '../../domain/sliding-window.js';
import { AddressSubjects, DEFAULT_ADDRESS_BUDGET_BYTES } from './address-subjects.js';
import { type LimiterSubjectRecord, readSubjectState, writeSubjectState } from './memory-limiter-snapshot.js';

export interface MemoryRateLimiterOptions {
  readonly banPolicy?: BanPolicy;
  /** Forget idle key subjects once this many are tracked, so that many keys cannot exhaust memory. */
  readonly sweepAbove?: number;
  /** How many bytes (reckoned, see ADDRESS_ENTRY_BYTES) client-address subjects take at most. */
  readonly addressBudgetBytes?: number;
}

const isKeySubject = (subject: string): boolean => subject.startsWith(KEY_SUBJECT_PREFIX);

/**
 * The sliding-window limiter in process memory: exact for one process, and the fallback of the Redis
 * limiter. Runs the domain's algorithm; JavaScript's single thread makes each decision atomic.
 *
 * Keys are exact: each is kept for as long as its windows or its ban matter. Client addresses (every
 * subject that is not a key's) are a least-recently-seen cache of `addressBudgetBytes`, whatever the
 * number of addresses sending (see AddressSubjects): an address evicted starts afresh when it comes
 * back, which costs a flood from a million addresses its per-address limit, never the service its
 * memory. An address that holds a ban is passed over by the eviction.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly subjects = new Map<string, SubjectState>();
  private readonly addresses: AddressSubjects;
  private readonly banPolicy: BanPolicy;
  private readonly sweepAbove: number;
  private nextSweepAt: number;

  constructor(
    private readonly clock: Clock,
    options: MemoryRateLimiterOptions = {},
  ) {
    this.banPolicy = options.banPolicy ?? DEFAULT_BAN_POLICY;
    this.sweepAbove = options.sweepAbove ?? 100_000;
    this.addresses = new AddressSubjects(options.addressBudgetBytes ?? DEFAULT_ADDRESS_BUDGET_BYTES, (state) =>
      this.holdsBan(state.ban, this.clock.nowMs()),
    );
    this.nextSweepAt = this.sweepAbove;
  }

  async admit(subject: string, policy: RateLimitPolicy): Promise<RateLimitDecision> {
    return this.admitNow(subject, policy);
  }

  /** The same decision without a promise, for callers that can use it synchronously. */
  admitNow(subject: string, policy: RateLimitPolicy): RateLimitDecision {
    const nowMs = this.clock.nowMs();
    if (isKeySubject(subject)) return admitRequest(this.keyState(subject, nowMs), policy, this.banPolicy, nowMs);
    const state = this.addresses.seen(subject, newSubjectState);
    const decision = admitRequest(state, policy, this.banPolicy, nowMs);
    this.addresses.recount(subject);
    return decision;
  }

  async peek(subject: string, policy: RateLimitPolicy): Promise<RateLimitStanding> {
    // A subject never seen is read from a fresh state and not kept: a peek leaves no trace.
    const state = this.subjects.get(subject) ?? this.addresses.peek(subject);
    return standingOf(state ?? newSubjectState(), policy, this.clock.nowMs());
  }

  /** How many subjects are tracked (for tests and metrics). */
  get size(): number {
    return this.subjects.size + this.addresses.size;
  }

  /** Whether `subject` is tracked now (an evicted address is not). */
  tracks(subject: string): boolean {
    return this.subjects.has(subject) || this.addresses.has(subject);
  }

  /**
   * The state of every key that still matters now (counted requests, a ban, or a ban recent enough to
   * escalate the next), and of every address that holds a ban, as records to store across a restart.
   * An address's counted requests are not kept: a million addresses that each sent one would otherwise
   * be written at every stop and read back at every start. Pass them to {@link restore} of the next
   * process.
   */
  serialise(): LimiterSubjectRecord[] {
    const nowMs = this.clock.nowMs();
    const records: LimiterSubjectRecord[] = [];
    for (const [subject, state] of this.subjects) {
      if (this.matters(state, nowMs)) records.push({ subject, state: writeSubjectState(state) });
    }
    for (const [subject, state] of this.addresses.all()) {
      if (this.holdsBan(state.ban, nowMs)) records.push({ subject, state: writeSubjectState(state) });
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
      else if (isKeySubject(record.subject) ? this.matters(state, nowMs) : this.holdsBan(state.ban, nowMs)) {
        if (isKeySubject(record.subject)) this.subjects.set(record.subject, state);
        else this.addresses.put(record.subject, state);
        restored += 1;
      }
    }
    this.nextSweepAt = Math.max(this.sweepAbove, Math.ceil(this.subjects.size * 1.5));
    return { restored, skipped };
  }

  private keyState(subject: string, nowMs: number): SubjectState {
    let state = this.subjects.get(subject);
    if (state === undefined) {
      if (this.subjects.size >= this.nextSweepAt) this.sweep(nowMs);
      state = newSubjectState();
      this.subjects.set(subject, state);
    }
    return state;
  }

  /** Whether a ban is in force, or recent enough that the next one escalates from it. */
  private holdsBan(ban: BanState, nowMs: number): boolean {
    return isBanned(ban, nowMs) || nowMs - ban.lastBanAtMs < this.banPolicy.escalationWindowMs;
  }

  /** Expires the subject's old buckets and says whether anything of it is left worth keeping. */
  private matters(state: SubjectState, nowMs: number): boolean {
    expireBuckets(state.minute, MINUTE_WINDOW, nowMs);
    expireBuckets(state.day, DAY_WINDOW, nowMs);
    const idle = state.minute.total === 0 && state.day.total === 0 && state.ban.strikes.length === 0;
    return !idle || this.holdsBan(state.ban, nowMs);
  }

  private sweep(nowMs: number): void {
    for (const [subject, state] of this.subjects) {
      if (!this.matters(state, nowMs)) this.subjects.delete(subject);
    }
    // Sweep again only once the map has grown by half again, so sweeping stays amortised O(1).
    this.nextSweepAt = Math.max(this.sweepAbove, Math.ceil(this.subjects.size * 1.5));
  }
}
