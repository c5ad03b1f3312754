import { hasLapsed, type KeyedReservation as Reservation } from '../../domain/reservation.js';

/**
 * Reservations stored as held, kept in order of expiry (then id): a write or a read finds those whose
 * time is up by a binary search, and reads none of the others. It is what the SQL stores' partial
 * indexes by (pet, expiry) and (key, expiry) are to them.
 */
export class HeldByExpiry {
  private readonly holds: Reservation[] = [];

  get size(): number {
    return this.holds.length;
  }

  add(hold: Reservation): void {
    this.holds.splice(this.indexOf(hold), 0, hold);
  }

  /** Forgets `hold` (found by its expiry and id); a hold not kept is a no-op. */
  remove(hold: Reservation): void {
    const at = this.indexOf(hold);
    if (this.holds[at]?.id !== hold.id) return;
    this.holds.splice(at, 1);
  }

  /** How many holds lapsed by `nowMs`: those that expire at or before it. */
  lapsedCount(nowMs: number): number {
    let lo = 0;
    let hi = this.holds.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (hasLapsed((this.holds[mid] as Reservation).expiresAtMs, nowMs)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The holds lapsed by `nowMs`, soonest first; the others are not looked at. */
  lapsed(nowMs: number): Reservation[] {
    return this.holds.slice(0, this.lapsedCount(nowMs));
  }

  /** The holds still held at `nowMs`, soonest to lapse first. */
  live(nowMs: number): Reservation[] {
    return this.holds.slice(this.lapsedCount(nowMs));
  }

  /** Where `hold` is, or would go, in the order of expiry then id. */
  private indexOf(hold: Reservation): number {
    let lo = 0;
    let hi = this.holds.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.holds[mid] as Reservation;
      if (at.expiresAtMs < hold.expiresAtMs || (at.expiresAtMs === hold.expiresAtMs && at.id < hold.id)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
