import type { Clock } from '../../application/ports/clock.js';
import type { RateLimiter } from '../../application/ports/rate-limiter.js';
import { KEY_SUBJECT_PREFIX } from '../../domain/api-key.js';
import { type BanPolicy, type BanState, DEFAULT_BAN_POLICY, isBanned } from '../../domain/ban.js';
import type { RateLimitPolicy } from '../../domain/plan.js';
import { admitRequest, newSubjectState, type RateLimitDecision, type SubjectState } from '../../domain/rate-limit.js';
import { type RateLimitStanding, standingOf } from '../../domain/rate-limit-standing.js';
import { DAY_WINDOW, expireBuckets, MINUTE_WINDOW } from '../../domain/sliding-window.js';
import { type LimiterSubjectRecord, readSubjectState, writeSubjectState } from './memory-limiter-snapshot.js';

/**
 * What one client-address subject is reckoned to take, as measured by `npm run bench -- --only=limiter-memory`
 * (bench/README.md): the entry itself (its name, its state, the Map's slot), and each bucket of its two
 * windows or strike of its ban on top (V8's heap, Node 20).
 */
export const ADDRESS_ENTRY_BYTES = 750;
export const ADDRESS_BUCKET_BYTES = 48;

/**
 * How much the client-address subjects take at most by default: 64 MB of resident memory, of which V8's
 * heap counts three quarters (the ratio measured by the same benchmark).
 */
export const DEFAULT_ADDRESS_BUDGET_BYTES = 48 * 1024 * 1024;

/**
 * How many of the least recently seen addresses holding a ban an eviction passes over before it evicts
 * one all the same: a ban is kept while others can go, yet making room stays O(1) and the budget holds
 * when bans alone fill it.
 */
const BANNED_PASSED_OVER = 64;

export interface MemoryRateLimiterOptions {
  readonly banPolicy?: BanPolicy;
  /** Forget idle key subjects once this many are tracked, so that many keys cannot exhaust memory. */
  readonly sweepAbove?: number;
  /** How many bytes (reckoned, see ADDRESS_ENTRY_BYTES) client-address subjects take at most. */
  readonly addressBudgetBytes?: number;
}

const isKeySubject = (subject: string): boolean => subject.startsWith(KEY_SUBJECT_PREFIX);

/** An address subject's state, and the bytes it was reckoned at when last counted. */
interface AddressEntry {
  readonly state: SubjectState;
  bytes: number;
}

const bytesOf = (state: SubjectState): number =>
  ADDRESS_ENTRY_BYTES +
  ADDRESS_BUCKET_BYTES * (state.minute.buckets.size + state.day.buckets.size + state.ban.strikes.length);

/**
 * The sliding-window limiter in process memory: exact for one process, and the fallback of the Redis
 * limiter. Runs the domain's algorithm; JavaScript's single thread makes each decision atomic.
 *
 * Keys are exact: each is kept for as long as its windows or its ban matter. Client addresses (every
 * subject that is not a key's) are a least-recently-seen cache of `addressBudgetBytes`, whatever the
 * number of addresses sending (an address's bytes reckoned from its buckets after each decision): an address evicted starts afresh when it comes back, which costs a
 * flood from a million addresses its per-address limit, never the service its memory. An address that
 * holds a ban is passed over by the eviction (see BANNED_PASSED_OVER).
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly subjects = new Map<string, SubjectState>();
  /** Address subjects, least recently seen first (a Map iterates in insertion order). */
  private readonly addresses = new Map<string, AddressEntry>();
  private addressBytes = 0;
  private readonly banPolicy: BanPolicy;
  private readonly sweepAbove: number;
  private readonly addressBudgetBytes: number;
  private nextSweepAt: number;

  constructor(
    private readonly clock: Clock,
    options: MemoryRateLimiterOptions = {},
  ) {
    this.banPolicy = options.banPolicy ?? DEFAULT_BAN_POLICY;
    this.sweepAbove = options.sweepAbove ?? 100_000;
    this.addressBudgetBytes = options.addressBudgetBytes ?? DEFAULT_ADDRESS_BUDGET_BYTES;
    this.nextSweepAt = this.sweepAbove;
  }

  async admit(subject: string, policy: RateLimitPolicy): Promise<RateLimitDecision> {
    return this.admitNow(subject, policy);
  }

  /** The same decision without a promise, for callers that can use it synchronously. */
  admitNow(subject: string, policy: RateLimitPolicy): RateLimitDecision {
    const nowMs = this.clock.nowMs();
    if (isKeySubject(subject)) return admitRequest(this.keyState(subject, nowMs), policy, this.banPolicy, nowMs);
    const entry = this.addressEntry(subject, nowMs);
    const decision = admitRequest(entry.state, policy, this.banPolicy, nowMs);
    this.recount(entry, nowMs);
    return decision;
  }

  async peek(subject: string, policy: RateLimitPolicy): Promise<RateLimitStanding> {
    // A subject never seen is read from a fresh state and not kept: a peek leaves no trace.
    const state = this.subjects.get(subject) ?? this.addresses.get(subject)?.state;
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
    for (const [subject, { state }] of this.addresses) {
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
        else this.keepAddress(record.subject, state, nowMs);
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

  private addressEntry(subject: string, nowMs: number): AddressEntry {
    const seen = this.addresses.get(subject);
    if (seen === undefined) return this.keepAddress(subject, newSubjectState(), nowMs);
    // Seen again: moved to the back, the most recently seen end.
    this.addresses.delete(subject);
    this.addresses.set(subject, seen);
    return seen;
  }

  /** Adds an address subject as the most recently seen, and evicts others until the budget holds. */
  private keepAddress(subject: string, state: SubjectState, nowMs: number): AddressEntry {
    const known = this.addresses.get(subject);
    if (known !== undefined) {
      this.addresses.delete(subject);
      this.addressBytes -= known.bytes;
    }
    const entry: AddressEntry = { state, bytes: 0 };
    this.addresses.set(subject, entry);
    this.recount(entry, nowMs);
    return entry;
  }

  /** Counts an address's bytes again after its state changed, and evicts until the budget holds. */
  private recount(entry: AddressEntry, nowMs: number): void {
    const bytes = bytesOf(entry.state);
    this.addressBytes += bytes - entry.bytes;
    entry.bytes = bytes;
    // The newest entry (the one just counted) is never evicted for its own sake.
    while (this.addressBytes > this.addressBudgetBytes && this.addresses.size > 1) this.evictAddress(nowMs);
  }

  /** Evicts the least recently seen address that holds no ban, or after BANNED_PASSED_OVER, the oldest. */
  private evictAddress(nowMs: number): void {
    for (let passed = 0; passed < BANNED_PASSED_OVER; passed += 1) {
      const oldest = this.addresses.entries().next().value;
      if (oldest === undefined) return;
      const [subject, entry] = oldest;
      this.addresses.delete(subject);
      if (!this.holdsBan(entry.state.ban, nowMs)) {
        this.addressBytes -= entry.bytes;
        return;
      }
      this.addresses.set(subject, entry);
    }
    const oldest = this.addresses.entries().next().value;
    if (oldest === undefined) return;
    this.addresses.delete(oldest[0]);
    this.addressBytes -= oldest[1].bytes;
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
