import type { Clock } from '../../application/ports/clock.js';
import type {
  HoldQuery,
  InventoryQuery,
  InventoryRepository,
  NamedInventoryItem,
  NamedInventoryQuery,
} from '../../application/ports/inventory-repository.js';
import { type InventoryItem, inventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { PetStatus } from '../../domain/pet-status.js';
import type { KeyedReservation, Reservation } from '../../domain/reservation.js';
import type { ReservationCommand, ReservationWriteResult } from '../../domain/reservation-outcome.js';
import type { StockCommand } from '../../domain/stock-command.js';
import type { StockWriteResult } from '../../domain/stock-outcome.js';
import type { InventoryEntry } from '../../domain/stock-write.js';
import { expireGroup } from './group-write.js';
import { GroupedWriter, type GroupOptions } from './grouped-writer.js';
import { type PostgresDatabase, prepared } from './postgres-database.js';
import { filteredPage } from './postgres-filtered-pages.js';
import { listHoldsIn, nextHolderIn } from './postgres-hold-statements.js';
import { namedItems, pageQuery, searchedPage } from './postgres-named-pages.js';
import {
  entryOfPgRow,
  LAPSED_PETS,
  type PgEntryRow,
  readReservation,
  reservedAt,
  STAMP_AT,
  versionAt,
} from './postgres-reservation-statements.js';
import { SharedRead } from './shared-read.js';

// The statements of the request path, parsed and planned once per connection. What is reserved is read
// at the time in the last parameter.
const FIRST_PAGE = prepared(
  'inventory_first_page_at',
  `SELECT id, quantity, status, ${reservedAt('$2')} FROM pets ORDER BY id LIMIT $1`,
);
const NEXT_PAGE = prepared(
  'inventory_next_page_at',
  `SELECT id, quantity, status, ${reservedAt('$3')} FROM pets WHERE id > $1 ORDER BY id LIMIT $2`,
);
const ENTRY = prepared(
  'inventory_entry_at',
  `SELECT id, quantity, status, ${versionAt('$2')}, ${reservedAt('$2')} FROM pets WHERE id = $1`,
);
/** The most entries one chunk of a list holds. */
const LIST_CHUNK = 1_000;

type PgStockRow = [id: bigint, quantity: number, status: string, reserved: number];

/** The domain re-checks the row (the status is cast only for the type), so a corrupt row throws instead of leaking. */
const itemOfPgRow = (row: PgStockRow): InventoryItem => inventoryItem(row[0], row[1], row[2] as PetStatus, row[3]);

/**
 * Stock levels in the `pets` table, shared by every instance. Stock and reservation writes go in groups
 * (see grouped-writer.ts): the group's keys and rows locked and read, the core's decision of each write,
 * and one statement that applies them all, in one transaction.
 */
export class PostgresInventoryRepository implements InventoryRepository {
  /**
   * A GET of the list reads the stamp first: under load, one query answers the GETs that arrive while
   * the previous one is under way, and each still sees every write committed before it arrived.
   */
  private readonly stamps: SharedRead<string>;
  /** Stock and reservation writes, committed in groups; a group that fails is written again a write at a time. */
  private readonly group: GroupedWriter;

  /** `clock` is the time what is reserved is read at. */
  constructor(
    private readonly db: PostgresDatabase,
    private readonly clock: Clock,
    group: Pick<GroupOptions, 'lanes' | 'onCommitted'> = {},
  ) {
    // The time is taken as the read starts, so a hold that lapsed before a caller arrived is counted.
    this.stamps = new SharedRead(async () => {
      const [row] = await this.db.rows<[string]>(STAMP_AT, [this.clock.nowMs()]);
      return (row as [string])[0];
    });
    this.group = new GroupedWriter(db, group);
  }

  /**
   * Each chunk is one query that starts after the last id yielded, so no connection or transaction is
   * held from one chunk to the next, and memory holds one chunk whatever the table's size.
   */
  async *list(query: InventoryQuery = {}): AsyncIterable<readonly InventoryItem[]> {
    let after = query.after;
    let left = query.limit ?? Number.POSITIVE_INFINITY;
    const filtered = query.statuses !== undefined || query.maxAvailable !== undefined;
    while (left > 0) {
      const size = Math.min(LIST_CHUNK, left);
      const now = this.clock.nowMs();
      const rows = filtered
        ? await filteredPage(this.db, query, after, size, now)
        : after === undefined
          ? await this.db.rows<PgStockRow>(FIRST_PAGE, [size, now])
          : await this.db.rows<PgStockRow>(NEXT_PAGE, [after, size, now]);
      if (rows.length === 0) return;
      const chunk = rows.map(itemOfPgRow);
      left -= chunk.length;
      after = (chunk[chunk.length - 1] as InventoryItem).petId;
      yield chunk;
      if (rows.length < size) return;
    }
  }

  /** Without a name, the list's own page (and its filters' statements), then the page's names. */
  async listNamed(query: NamedInventoryQuery): Promise<readonly NamedInventoryItem[]> {
    if (query.nameContains !== undefined) return searchedPage(this.db, query, this.clock.nowMs());
    const items: InventoryItem[] = [];
    for await (const chunk of this.list(pageQuery(query))) items.push(...chunk);
    return namedItems(this.db, items);
  }

  async get(petId: PetId): Promise<InventoryEntry | undefined> {
    const [row] = await this.db.rows<PgEntryRow>(ENTRY, [petId, this.clock.nowMs()]);
    return row === undefined ? undefined : entryOfPgRow(row);
  }

  /** See STAMP_AT: exact across instances, and one small query, shared (see `stamps`). */
  stamp(): Promise<string> {
    return this.stamps.read();
  }

  write(command: StockCommand): Promise<StockWriteResult> {
    return this.group.writeStock(command);
  }

  /** Resolves once no write is queued or under way: the store closes after it. */
  drained(): Promise<void> {
    return this.group.drained();
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

  writeReservation(command: ReservationCommand): Promise<ReservationWriteResult> {
    return this.group.writeReservation(command);
  }

  getReservation(id: string): Promise<Reservation | undefined> {
    return readReservation(this.db, id);
  }

  listHolds(query: HoldQuery): Promise<readonly KeyedReservation[]> {
    return listHoldsIn(this.db, query);
  }

  nextHolder(after: string | undefined): Promise<string | undefined> {
    return nextHolderIn(this.db, after);
  }

  /** At most `max` pets with holds lapsed by `nowMs`, unmarked. */
  async petsWithLapsedHolds(nowMs: number, max: number): Promise<readonly PetId[]> {
    return (await this.db.rows<[bigint]>(LAPSED_PETS, [nowMs, max])).map(([id]) => id as PetId);
  }

  /**
   * Marks expired the lapsed holds of one pet, in a transaction that locks and writes its row as a group
   * of writes does, so it never waits on a write in a cycle.
   */
  markLapse(petId: PetId, nowMs: number): Promise<number> {
    return this.db.transaction((tx) => expireGroup(tx, [petId], nowMs));
  }
}
