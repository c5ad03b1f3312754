import type { Database, Statement } from 'better-sqlite3';
import type { FeedEntry, StockChangeFeed } from '../../application/ports/stock-change-feed.js';
import { FEED_START, type FeedPosition } from '../../domain/feed-cursor.js';
import { stockLevel } from '../../domain/inventory-item.js';
import type { PetStatus } from '../../domain/pet-status.js';
import { changeKindOf, type StockChange } from '../../domain/stock-change.js';
import { type ChangeRow, COLUMNS } from './sqlite-stock-change-log.js';

/** A change with its pet, as the feed and the outbox read it. */
export type FeedRow = readonly [petId: bigint, ...ChangeRow];

/**
 * The feed of a SQLite file. One writer at a time holds the file's write lock, and a change takes the
 * sequence number after the largest one under it, so `seq` grows in commit order: a reader that saw
 * change n has seen every change below n. Every position says txn 0.
 */
export class SqliteStockChangeFeed implements StockChangeFeed {
  private readonly page: Statement<[bigint, number], FeedRow>;
  private readonly held: Statement<[bigint], number>;
  private readonly newest: Statement<[], bigint | null>;

  constructor(db: Database) {
    this.page = db
      .prepare<[bigint, number], FeedRow>(
        `SELECT pet_id, ${COLUMNS} FROM stock_changes WHERE seq > ? ORDER BY seq LIMIT ?`,
      )
      .raw();
    this.held = db.prepare<[bigint], number>('SELECT 1 FROM stock_changes WHERE seq = ?').pluck();
    this.newest = db.prepare<[], bigint | null>('SELECT max(seq) FROM stock_changes').pluck();
  }

  async changesAfter(after: FeedPosition, limit: number): Promise<readonly FeedEntry[] | undefined> {
    // Every position this feed gives says txn 0 and names a change it holds (changes are never removed).
    if (after.txn !== 0n || (after.id !== 0n && this.held.get(after.id) === undefined)) return undefined;
    return this.page
      .all(after.id, limit)
      .map((row) => ({ change: changeOfRow(row), position: { txn: 0n, id: row[1] } }));
  }

  /** The largest seq: every change below it committed before it did (see the class). */
  async head(): Promise<FeedPosition> {
    const seq = this.newest.get();
    return seq === null || seq === undefined ? FEED_START : { txn: 0n, id: seq };
  }
}

/** The change a row holds; the domain re-checks it (the status is cast only for the type). */
export function changeOfRow([petId, seq, bq, bs, aq, as, actor, atMs, kind, reason]: FeedRow): StockChange {
  return {
    id: seq,
    kind: changeKindOf(kind),
    before: stockLevel(petId, Number(bq), bs as PetStatus),
    after: stockLevel(petId, Number(aq), as as PetStatus),
    actor,
    atMs: Number(atMs),
    reason,
  };
}
