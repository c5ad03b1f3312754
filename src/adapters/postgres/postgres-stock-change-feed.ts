import type { FeedEntry, StockChangeFeed } from '../../application/ports/stock-change-feed.js';
import { FEED_START, type FeedPosition } from '../../domain/feed-cursor.js';
import { stockLevel } from '../../domain/inventory-item.js';
import type { PetStatus } from '../../domain/pet-status.js';
import { changeKindOf, type StockChange } from '../../domain/stock-change.js';
import { type PostgresDatabase, prepared } from './postgres-database.js';
import type { PgChangeRow } from './postgres-stock-change-log.js';

/** A change with its pet, as the outbox reads it. */
export type PetChangeRow = [petId: bigint, ...PgChangeRow];

type PgFeedRow = [txid: bigint, ...PetChangeRow];

// A change is served only once its transaction id is below the oldest transaction still running: every
// transaction that can still commit then has a larger id, so its changes sort after every change served
// (see docs/decisions.md, "The change feed's order on PostgreSQL"). The (txid, id) index serves the walk.
const FEED_PAGE = prepared(
  'feed_page',
  `SELECT txid, pet_id, id, before_quantity, before_status, after_quantity, after_status, actor, at_ms, kind, reason
   FROM stock_changes
   WHERE (txid, id) > ($1, $2) AND txid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
   ORDER BY txid, id LIMIT $3`,
);

// A cursor names the change it was given after: the same id with the same transaction (the primary key
// finds it; a forged txn for a real id does not match).
const HELD = prepared('feed_position_held', 'SELECT 1 FROM stock_changes WHERE id = $2 AND txid = $1');

// The newest change the feed serves now (FEED_PAGE's visibility rule), by the (txid, id) index read
// backwards: a transaction that commits later has a txid at or above that xmin, so its changes come after.
const HEAD = prepared(
  'feed_head',
  `SELECT txid, id FROM stock_changes
   WHERE txid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
   ORDER BY txid DESC, id DESC LIMIT 1`,
);

/** The feed of a PostgreSQL database, shared by every instance. */
export class PostgresStockChangeFeed implements StockChangeFeed {
  constructor(private readonly db: PostgresDatabase) {}

  async changesAfter(after: FeedPosition, limit: number): Promise<readonly FeedEntry[] | undefined> {
    const start = after.txn === 0n && after.id === 0n;
    if (!start && (await this.db.rows(HELD, [after.txn, after.id])).length === 0) return undefined;
    const rows = await this.db.rows<PgFeedRow>(FEED_PAGE, [after.txn, after.id, limit]);
    return rows.map(([txid, ...row]) => ({ change: changeOfPgRow(row), position: { txn: txid, id: row[1] } }));
  }

  async head(): Promise<FeedPosition> {
    const [row] = await this.db.rows<[bigint, bigint]>(HEAD, []);
    return row === undefined ? FEED_START : { txn: row[0], id: row[1] };
  }
}

/** The change a row holds; the domain re-checks it (the status is cast only for the type). */
export function changeOfPgRow([petId, id, bq, bs, aq, as, actor, atMs, kind, reason]: PetChangeRow): StockChange {
  return {
    id,
    kind: changeKindOf(kind),
    before: stockLevel(petId, bq, bs as PetStatus),
    after: stockLevel(petId, aq, as as PetStatus),
    actor,
    atMs: Number(atMs),
    reason,
  };
}
