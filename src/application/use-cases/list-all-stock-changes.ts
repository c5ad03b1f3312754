import { FEED_START, type FeedPosition } from '../../domain/feed-cursor.js';
import { fail, ok, type Result } from '../../domain/result.js';
import type { FeedEntry, StockChangeFeed } from '../ports/stock-change-feed.js';

export interface ListAllStockChangesInput {
  /** Only changes after this position (the last one the reader saw); every change when absent. */
  readonly after?: FeedPosition;
  readonly limit: number;
}

/** Why a page of the feed was refused: its cursor names no position the feed gave. */
export type FeedPageRefusal = 'unknown_cursor';

/** listAllStockChanges: the change feed, every stock change of every pet, oldest first. */
export class ListAllStockChanges {
  constructor(private readonly feed: StockChangeFeed) {}

  async execute(input: ListAllStockChangesInput): Promise<Result<readonly FeedEntry[], FeedPageRefusal>> {
    const entries = await this.feed.changesAfter(input.after ?? FEED_START, input.limit);
    return entries === undefined ? fail('unknown_cursor') : ok(entries);
  }

  /** Where a reader who wants only what happens from now on starts: the feed's head, not its history. */
  head(): Promise<FeedPosition> {
    return this.feed.head();
  }
}
