import { type Hold, lapseOf } from './reservation.js';

/** A pet's entry as stored, as far as the lapse of its holds moves it. */
export interface StoredHolding {
  /** The sum of the quantities of the pet's holds stored as held, lapsed or not. */
  readonly reserved: number;
  readonly version: number;
}

/**
 * What marking the lapse of one pet's holds writes, all of it: the holds to store as `expired`, and the
 * entry's held count and version after. A store applies it as answered, and computes nothing of it.
 */
export interface LapseDecision<H extends Hold> {
  /** The holds whose time is up, each with the state `expired`; empty when nothing is to be written. */
  readonly expired: readonly H[];
  /** What the entry still holds: its stored `reserved` less the lapsed holds' quantity. */
  readonly reserved: number;
  /** Its stored version moved by one a hold marked, as the expiry already moved the version readers saw. */
  readonly version: number;
}

/**
 * Decides the lapse of one pet's holds at `nowMs`, as `decideStockWrite` decides a write: from the
 * holds the store read (those stored as held whose time is up; any others are kept as they are) and
 * its entry as stored. A stored held count below what lapses is a corrupt store, which throws.
 *
 * Its `reserved` and `version` are also the entry a reader sees at `nowMs` before anything is marked:
 * a hold stops counting the moment it lapses, and its lapse moves the version readers see then.
 */
export function decideLapse<H extends Hold>(
  holds: readonly H[],
  stored: StoredHolding,
  nowMs: number,
): LapseDecision<H> {
  const { expired, quantity } = lapseOf(holds, nowMs);
  const reserved = stored.reserved - quantity;
  if (reserved < 0) throw new RangeError(`the pet holds ${stored.reserved}, less than its lapsed holds' ${quantity}`);
  return { expired, reserved, version: stored.version + expired.length };
}
