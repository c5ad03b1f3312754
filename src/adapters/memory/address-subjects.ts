import type { SubjectState } from '../../domain/rate-limit.js';

/**
 * What one client-address subject is reckoned to take, as measured by `npm run bench -- --only=addresses`
 * (bench/README.md): the entry itself (its name, its state, its place in the cache), and each bucket of
 * its two windows or strike of its ban on top (V8's heap, Node 20).
 */
export const ADDRESS_ENTRY_BYTES = 750;
export const ADDRESS_BUCKET_BYTES = 48;

/**
 * How much the client-address subjects take at most by default, reckoned as above: 48 MiB of V8's heap,
 * under the 64 MB they may take with room for the reckoning's error (bench/README.md measures both).
 */
export const DEFAULT_ADDRESS_BUDGET_BYTES = 48 * 1024 * 1024;

/**
 * How many of the least recently seen addresses holding a ban an eviction passes over before it evicts
 * one all the same: a ban is kept while others can go, yet making room stays O(1) and the budget holds
 * when bans alone fill it.
 */
const BANNED_PASSED_OVER = 64;

/** An address subject's state, the bytes it was reckoned at when last counted, and its neighbours by recency. */
interface Entry {
  readonly subject: string;
  readonly state: SubjectState;
  bytes: number;
  older: Entry | undefined;
  newer: Entry | undefined;
}

const bytesOf = (state: SubjectState): number =>
  ADDRESS_ENTRY_BYTES +
  ADDRESS_BUCKET_BYTES * (state.minute.buckets.size + state.day.buckets.size + state.ban.strikes.length);

/**
 * The client-address subjects of the in-process limiter: a least-recently-seen cache within a budget of
 * bytes, whatever the number of addresses. A doubly linked list orders the entries, since deleting from
 * the front of a JavaScript Map leaves holes its iteration walks again at every eviction (75 s for a
 * million addresses, measured). An entry whose state `keeps` is passed over by the eviction.
 */
export class AddressSubjects {
  private readonly entries = new Map<string, Entry>();
  private oldest: Entry | undefined;
  private newest: Entry | undefined;
  private bytes = 0;

  constructor(
    private readonly budgetBytes: number,
    private readonly keeps: (state: SubjectState) => boolean,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  has(subject: string): boolean {
    return this.entries.has(subject);
  }

  /** The state of `subject`, or undefined; not counted as seen. */
  peek(subject: string): SubjectState | undefined {
    return this.entries.get(subject)?.state;
  }

  /** The state of `subject`, made fresh if unknown, as the most recently seen. */
  seen(subject: string, fresh: () => SubjectState): SubjectState {
    const known = this.entries.get(subject);
    if (known === undefined) return this.put(subject, fresh());
    this.unlink(known);
    this.append(known);
    return known.state;
  }

  /** Sets the state of `subject`, as the most recently seen, and evicts until the budget holds. */
  put(subject: string, state: SubjectState): SubjectState {
    const known = this.entries.get(subject);
    if (known !== undefined) this.remove(known);
    const entry: Entry = { subject, state, bytes: 0, older: undefined, newer: undefined };
    this.entries.set(subject, entry);
    this.append(entry);
    this.recount(subject);
    return state;
  }

  /** Counts the bytes of `subject` again after its state changed, and evicts until the budget holds. */
  recount(subject: string): void {
    const entry = this.entries.get(subject);
    if (entry === undefined) return;
    const bytes = bytesOf(entry.state);
    this.bytes += bytes - entry.bytes;
    entry.bytes = bytes;
    // The entry just counted, the newest, is never evicted for its own sake.
    while (this.bytes > this.budgetBytes && this.entries.size > 1) this.evictOne();
  }

  /** Every subject and its state, least recently seen first. */
  *all(): Generator<readonly [string, SubjectState]> {
    for (let entry = this.oldest; entry !== undefined; entry = entry.newer) yield [entry.subject, entry.state];
  }

  /** Evicts the least recently seen entry that `keeps` lets go, or after BANNED_PASSED_OVER, the oldest. */
  private evictOne(): void {
    for (let passed = 0; passed < BANNED_PASSED_OVER; passed += 1) {
      const oldest = this.oldest;
      if (oldest === undefined || oldest === this.newest) break;
      if (!this.keeps(oldest.state)) {
        this.remove(oldest);
        return;
      }
      // Kept: moved behind the others, so the next look is at another.
      this.unlink(oldest);
      this.append(oldest);
    }
    if (this.oldest !== undefined) this.remove(this.oldest);
  }

  private remove(entry: Entry): void {
    this.unlink(entry);
    this.entries.delete(entry.subject);
    this.bytes -= entry.bytes;
  }

  private append(entry: Entry): void {
    entry.older = this.newest;
    entry.newer = undefined;
    if (this.newest === undefined) this.oldest = entry;
    else this.newest.newer = entry;
    this.newest = entry;
  }

  private unlink(entry: Entry): void {
    if (entry.older === undefined) this.oldest = entry.newer;
    else entry.older.newer = entry.newer;
    if (entry.newer === undefined) this.newest = entry.older;
    else entry.newer.older = entry.older;
    entry.older = undefined;
    entry.newer = undefined;
  }
}
