import { FEED_START, type FeedPosition } from '../../domain/feed-cursor.js';
import type { FeedEntry, StockChangeFeed } from '../ports/stock-change-feed.js';

export interface ListAllStockChangesInput {
  /** Only changes after this position (the last one the reader saw); every change when absent. */
  readonly after?: FeedPosition;
  readonly limit: number;
}

/** listAllStockChanges: the change feed, every stock change of every pet, oldest first. */
export class ListAllStockChanges {
  constructor(private readonly feed: StockChangeFeed) {}

  execute(input: ListAllStockChangesInput): Promise<readonly FeedEntry[]> {
    return this.feed.changesAfter(input.after ?? FEED_START, input.limit);
  }
}
