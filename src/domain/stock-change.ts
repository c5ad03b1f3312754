import type { StockLevel } from './inventory-item.js';
import { holdsControlCharacter } from './plain-text.js';

/**
 * Which kind of write made a change: a stock set to a count, moved by a delta, or lowered by the
 * commit of a reservation.
 */
export type StockChangeKind = 'set' | 'adjust' | 'reservation_commit';

export const STOCK_CHANGE_KINDS: readonly StockChangeKind[] = ['set', 'adjust', 'reservation_commit'];

const CHANGE_KINDS: ReadonlySet<string> = new Set(STOCK_CHANGE_KINDS);

export const isStockChangeKind = (value: string): value is StockChangeKind => CHANGE_KINDS.has(value);

/** A stored kind as a StockChangeKind; anything else is a corrupt record, which throws rather than leaks. */
export function changeKindOf(value: string): StockChangeKind {
  if (!isStockChangeKind(value)) throw new RangeError(`${value} is not a kind of stock change`);
  return value;
}

/** One recorded change of stock: who changed what, how, why, when, and what it was before. */
export interface StockChange {
  /**
   * The change's id: an int64 that grows with every change recorded, so it orders a pet's history and
   * pages it (`before`).
   */
  readonly id: bigint;
  readonly kind: StockChangeKind;
  readonly before: StockLevel;
  readonly after: StockLevel;
  /** The id of the API key (or the admin tool) that made the change. */
  readonly actor: string;
  /** Unix milliseconds. */
  readonly atMs: number;
  /** Why, as the client said it (see `isReason`); null when it did not. */
  readonly reason: string | null;
}

/** The most characters a reason holds. */
export const REASON_MAX = 200;

/**
 * Whether `text` can be a change's reason: 1 to 200 characters (code points, so a character outside the
 * Basic Multilingual Plane counts once), none of them a control character or a bidirectional control:
 * none belongs in a line a person reads in a history (see `holdsControlCharacter`).
 */
export function isReason(text: string): boolean {
  if (text.length === 0 || holdsControlCharacter(text)) return false;
  let count = 0;
  for (const _ of text) {
    count += 1;
    if (count > REASON_MAX) return false;
  }
  return true;
}
