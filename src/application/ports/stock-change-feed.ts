import type { FeedPosition } from '../../domain/feed-cursor.js';
import type { StockChange } from '../../domain/stock-change.js';

/** One change as the feed lists it: the change, and the position a reader passes to read on after it. */
export interface FeedEntry {
  readonly change: StockChange;
  readonly position: FeedPosition;
}

/**
 * Every stock change of every pet, in the order a reader may safely take them: a change is listed only
 * once no change can still commit before it, so a reader that goes on after the last position it saw
 * never misses a change, and never sees one twice.
 */
export interface StockChangeFeed {
  /**
   * At most `limit` changes after `after`, oldest first; `undefined` when `after` is neither
   * `FEED_START` nor the position of a change this feed holds: no reader was given it, so reading on
   * from it could skip changes or list none for ever (see docs/decisions.md, "Feed cursors").
   */
  changesAfter(after: FeedPosition, limit: number): Promise<readonly FeedEntry[] | undefined>;

  /**
   * The feed's head: the position of its newest change a reader may take now (FEED_START when none), so
   * that a reader who only wants what happens from now on reads after it, without the history. A change
   * that commits later comes after it.
   */
  head(): Promise<FeedPosition>;
}
