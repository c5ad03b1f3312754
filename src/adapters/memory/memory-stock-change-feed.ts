import type { FeedEntry, StockChangeFeed } from '../../application/ports/stock-change-feed.js';
import { FEED_START, type FeedPosition } from '../../domain/feed-cursor.js';
import type { StockChange } from '../../domain/stock-change.js';
import type { MemoryStore } from './memory-store.js';

/**
 * The feed of an in-memory store: its changes in the order they were pushed, which is the order they
 * were made in, since a write runs whole before the next. Every position says txn 0.
 */
export class MemoryStockChangeFeed implements StockChangeFeed {
  constructor(private readonly store: MemoryStore) {}

  async changesAfter(after: FeedPosition, limit: number): Promise<readonly FeedEntry[] | undefined> {
    // Ids are 1, 2, 3... and none is ever removed: every id up to the count is a change's, 0 the start.
    if (after.txn !== 0n || after.id < 0n || after.id > BigInt(this.store.changes.length)) return undefined;
    // Ids are positions plus one: the change after id n is at position n.
    const start = Number(after.id);
    return this.store.changes
      .slice(start, start + limit)
      .map((change: StockChange) => ({ change, position: { txn: 0n, id: change.id } }));
  }

  async head(): Promise<FeedPosition> {
    const newest = this.store.changes[this.store.changes.length - 1];
    return newest === undefined ? FEED_START : { txn: 0n, id: newest.id };
  }
}
