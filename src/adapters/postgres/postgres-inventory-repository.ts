import type { InventoryQuery, InventoryRepository } from '../../application/ports/inventory-repository.js';
import { type InventoryItem, inventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { PetStatus } from '../../domain/pet-status.js';
import type { StockCommand } from '../../domain/stock-command.js';
import type { StockWriteResult } from '../../domain/stock-outcome.js';
import type { InventoryEntry } from '../../domain/stock-write.js';
import { SharedRead } from '../shared/shared-read.js';
import { STAMP } from './inventory-stamp.js';
import { type PostgresDatabase, prepared } from './postgres-database.js';
import { writeStock } from './postgres-stock-write.js';

// The statements of the request path, parsed and planned once per connection.
const FIRST_PAGE = prepared('inventory_first_page', 'SELECT id, quantity, status FROM pets ORDER BY id LIMIT $1');
const NEXT_PAGE = prepared(
  'inventory_next_page',
  'SELECT id, quantity, status FROM pets WHERE id > $1 ORDER BY id LIMIT $2',
);
const ENTRY = prepared('inventory_entry', 'SELECT id, quantity, status, version FROM pets WHERE id = $1');

/** The most entries one chunk of a list holds. */
const LIST_CHUNK = 1_000;

type StockRow = [id: bigint, quantity: number, status: string];
type EntryRow = [id: bigint, quantity: number, status: string, version: bigint];

/** The domain re-checks the row (the status is cast only for the type), so a corrupt row throws instead of leaking. */
const itemOfRow = (row: StockRow | EntryRow): InventoryItem => inventoryItem(row[0], row[1], row[2] as PetStatus);
const entryOfRow = (row: EntryRow): InventoryEntry => ({ item: itemOfRow(row), version: Number(row[3]) });

/**
 * Stock levels in the `pets` table, shared by every instance. A write is a plain read, the core's
 * decision, and one statement that applies it only if nothing read has moved (see postgres-stock-write.ts).
 */
export class PostgresInventoryRepository implements InventoryRepository {
  /**
   * A GET of the list reads the stamp first: under load, one query answers the GETs that arrive while
   * the previous one is under way, and each still sees every write committed before it arrived.
   */
  private readonly stamps: SharedRead<string>;

  constructor(private readonly db: PostgresDatabase) {
    this.stamps = new SharedRead(async () => {
      const [row] = await this.db.rows<[string]>(STAMP);
      return (row as [string])[0];
    });
  }

  /**
   * Each chunk is one query that starts after the last id yielded, so no connection or transaction is
   * held from one chunk to the next, and memory holds one chunk whatever the table's size.
   */
  async *list(query: InventoryQuery = {}): AsyncIterable<readonly InventoryItem[]> {
    let after = query.after;
    let left = query.limit ?? Number.POSITIVE_INFINITY;
    while (left > 0) {
      const size = Math.min(LIST_CHUNK, left);
      const rows =
        after === undefined
          ? await this.db.rows<StockRow>(FIRST_PAGE, [size])
          : await this.db.rows<StockRow>(NEXT_PAGE, [after, size]);
      if (rows.length === 0) return;
      const chunk = rows.map(itemOfRow);
      left -= chunk.length;
      after = (chunk[chunk.length - 1] as InventoryItem).petId;
      yield chunk;
      if (rows.length < size) return;
    }
  }

  async get(petId: PetId): Promise<InventoryEntry | undefined> {
    const [row] = await this.db.rows<EntryRow>(ENTRY, [petId]);
    return row === undefined ? undefined : entryOfRow(row);
  }

  /** See STAMP: exact across instances, and one small query, shared (see `stamps`). */
  stamp(): Promise<string> {
    return this.stamps.read();
  }

  write(command: StockCommand): Promise<StockWriteResult> {
    return writeStock(this.db, command);
  }

  /**
   * SKIP LOCKED: a record a write is replacing right now is left for the next round, so a purge never
   * waits for a write, nor two instances' purges for each other.
   */
  forgetExpiredOutcomes(nowMs: number, max: number): Promise<number> {
    return this.db.run(
      `DELETE FROM idempotency_records WHERE (scope, key) IN (
         SELECT scope, key FROM idempotency_records WHERE expires_at_ms <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED
       )`,
      [nowMs, max],
    );
  }
}
