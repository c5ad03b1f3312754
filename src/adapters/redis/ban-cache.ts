import { isBanned } from '../../domain/ban.js';
import type { SubjectState } from '../../domain/rate-limit.js';

/** A ban learned from Redis, with the windows as Redis held them (nothing is counted while it lasts). */
interface CachedBan {
  readonly state: SubjectState;
  /** The Redis server's clock minus the local clock when the ban was learned. */
  readonly offsetMs: number;
}

/**
 * Bans learned from Redis, answered in process until they end, so that a banned client (one that keeps
 * knocking) costs no round trip. While a ban lasts the script changes nothing but bucket expiry, which
 * the domain can redo from the cached windows, so a cached answer is the one Redis would give.
 *
 * Bounded, because addresses are cheap to an attacker: when full, the oldest entry goes. A dropped ban
 * costs only a round trip, since Redis still holds it.
 */
export class BanCache {
  private readonly entries = new Map<string, CachedBan>();

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('ban cache size must be a positive integer');
  }

  /** The subject's ban and the server's time, if it is banned at local time `localNowMs`. */
  find(subject: string, localNowMs: number): { readonly state: SubjectState; readonly nowMs: number } | undefined {
    const entry = this.entries.get(subject);
    if (entry === undefined) return undefined;
    const nowMs = localNowMs + entry.offsetMs;
    if (isBanned(entry.state.ban, nowMs)) return { state: entry.state, nowMs };
    this.entries.delete(subject);
    return undefined;
  }

  remember(subject: string, state: SubjectState, offsetMs: number): void {
    this.entries.delete(subject);
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(subject, { state, offsetMs });
  }

  /** How many bans are held (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }
}
