import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Database, Statement } from 'better-sqlite3';
import type { Clock } from '../../application/ports/clock.js';
import type {
  HoldQuery,
  InventoryColumns,
  InventoryQuery,
  InventoryRepository,
  NamedInventoryItem,
  NamedInventoryQuery,
} from '../../application/ports/inventory-repository.js';
import { type InventoryItem, inventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import { PET_STATUSES, type PetStatus } from '../../domain/pet-status.js';
import { hasLapsed, type KeyedReservation, type Reservation } from '../../domain/reservation.js';
import type { ReservationCommand, ReservationWriteResult } from '../../domain/reservation-outcome.js';
import type { StockCommand } from '../../domain/stock-command.js';
import type { StockWriteResult } from '../../domain/stock-outcome.js';
import type { InventoryEntry } from '../../domain/stock-write.js';
import { heldAt, lapsedBy } from '../sql/hold-expiry.js';
import type { CommandQueue } from './command-queue.js';
import { type EntryRow, entryOfRow } from './entry-row.js';
import { FilteredInventoryPages, isFiltered, type PageShape } from './filtered-inventory-pages.js';
import { type HoldStatements, holdStatements } from './hold-statements.js';
import { NamedInventoryPages } from './named-inventory-pages.js';
import { RESERVATION_COLUMNS, reservationOfRow } from './reservation-statements.js';
import type { StoreRevision } from './store-revision.js';

/** How many holds had lapsed by a time, and when the next held one lapses (null: none left to). */
type LapseRow = readonly [lapsed: bigint, nextLapseMs: bigint | null];

/** The most entries one chunk of a list holds. */
const LIST_CHUNK = 1_000;

/**
 * A row of `pets` as the repository reads it: an array, which better-sqlite3 builds in about 60 % of
 * the time an object with named keys takes (measured on a 100-row list).
 */
type StockRow = readonly [id: bigint, quantity: bigint, status: string, reserved: bigint];

/**
 * Makes an InventoryItem of a row; the domain re-checks it (the status is cast only for the type), so a
 * corrupt row throws instead of leaking.
 */
const itemOfRow = (row: StockRow): InventoryItem =>
  inventoryItem(row[0], Number(row[1]), row[2] as PetStatus, Number(row[3]));

/** Of the holds stored as held for the row's pet, those whose time is up at `@now`. */
const lapsed = (what: string): string =>
  `(SELECT ${what} FROM reservations WHERE pet_id = pets.id AND state = 'held' AND ${lapsedBy('expires_at_ms', '@now')})`;

// What the row's pet has reserved at @now: a pet that holds nothing (`held` = 0, nearly every pet) is
// answered from its row alone; the others subtract from `held` (every hold stored as held) the holds
// whose time is up, which the partial index by (pet, expiry) finds without reading those still held.
const RESERVED = `CASE WHEN held = 0 THEN 0 ELSE held - ${lapsed('coalesce(sum(quantity), 0)')} END`;

// The entry's version at @now: each hold that lapsed unmarked moved it (see InventoryRepository).
const VERSION = `version + CASE WHEN held = 0 THEN 0 ELSE ${lapsed('count(*)')} END`;

/** The rows read as they are, one an entry. */
const ROWS: PageShape<StockRow> = { select: (rows) => rows, count: (rows) => rows.length };

/**
 * A page's rows as one row of SQLite's aggregates: how many, their ids as digits, then their
 * quantities, what they reserved and their statuses (as PET_STATUSES' indexes) as JSON arrays of
 * numbers, and the last id. Reading a page so makes six values, not four a pet: about 0.45 µs of CPU a
 * pet to the list's text against 0.8 for the rows (`npm run bench -- --only=scale`, step table). The
 * STRICT table's CHECKs hold status to the three names and quantity to a whole number in range (an
 * INTEGER PRIMARY KEY is an int64, as a PetId is); a status that escaped them gives null, which
 * `columnsOf` refuses.
 */
type ColumnsRow = readonly [
  count: bigint,
  petIds: string | null,
  quantities: string,
  reserved: string,
  statuses: string,
  last: bigint | null,
];

const COLUMNS: PageShape<ColumnsRow> = {
  // The aggregates take the rows in the order the page's ORDER BY gives them (SQLite's way, not its
  // promise: an ORDER BY in each aggregate sorted the page again and cost twice as much), and all of
  // them in the same order; `columnsOf` checks the order, so a change of it fails the listing.
  select: (rows) =>
    `SELECT count(*), group_concat(id), json_group_array(quantity), json_group_array(reserved),
            json_group_array(CASE status WHEN 'available' THEN 0 WHEN 'pending' THEN 1 WHEN 'sold' THEN 2 END),
            max(id)
     FROM (${rows})`,
  count: (rows) => rows.reduce((sum, row) => sum + Number(row[0]), 0),
};

/** Whether the decimal integer `a` is below `b`. */
function below(a: string, b: string): boolean {
  const negative = a.charCodeAt(0) === 45;
  if (negative !== (b.charCodeAt(0) === 45)) return negative;
  if (a.length !== b.length) return negative ? a.length > b.length : a.length < b.length;
  return negative ? a > b : a < b;
}

type Columns = InventoryColumns & { readonly last: PetId };

/** The columns of one row of aggregates; undefined for a page of no entry. */
function columnsOfRow(row: ColumnsRow): Columns | undefined {
  if (row[1] === null || row[5] === null) return undefined;
  const indexes = JSON.parse(row[4]) as (number | null)[];
  const statuses = new Array<PetStatus>(indexes.length);
  for (let i = 0; i < indexes.length; i += 1) {
    const index = indexes[i];
    const status = index === null || index === undefined ? undefined : PET_STATUSES[index];
    if (status === undefined) throw new RangeError('a stored inventory entry is not a valid InventoryItem');
    statuses[i] = status;
  }
  const quantities = JSON.parse(row[2]) as number[];
  const reserved = JSON.parse(row[3]) as number[];
  return { petIds: row[1].split(','), quantities, reserved, statuses, last: row[5] as PetId };
}

/** The page's columns, from the rows of aggregates its statements answered (one, or two joined). */
function columnsOf(rows: readonly ColumnsRow[]): Columns | undefined {
  const [first, second] = rows.map(columnsOfRow).filter((page) => page !== undefined);
  const page =
    first === undefined || second === undefined
      ? first
      : {
          petIds: first.petIds.concat(second.petIds),
          quantities: first.quantities.concat(second.quantities),
          reserved: first.reserved.concat(second.reserved),
          statuses: first.statuses.concat(second.statuses),
          last: second.last,
        };
  if (page === undefined) return undefined;
  const { petIds } = page;
  for (let i = 1; i < petIds.length; i += 1) {
    if (!below(petIds[i - 1] as string, petIds[i] as string)) throw new Error('SQLite aggregated a page out of order');
  }
  return page;
}

/** One page of a listing: what to yield, how many entries it holds, and its last petId. */
interface Page<T> {
  readonly chunk: T;
  readonly count: number;
  readonly last: PetId;
}

/**
 * Walks `query` in keyset pages of at most LIST_CHUNK entries: `read(after, size)` reads the page after
 * `after` (from the first entry when undefined), or answers undefined when none is left. A page shorter
 * than asked is the last; the event loop gets a turn between pages.
 */
async function* keysetChunks<T>(
  query: InventoryQuery,
  read: (after: PetId | undefined, size: number) => Page<T> | undefined,
): AsyncGenerator<T> {
  let after = query.after;
  let left = query.limit ?? Number.POSITIVE_INFINITY;
  while (left > 0) {
    const size = Math.min(LIST_CHUNK, left);
    const page = read(after, size);
    if (page === undefined) return;
    left -= page.count;
    after = page.last;
    const last = page.count < size;
    yield page.chunk;
    if (last) return;
    await nextTurn();
  }
}

/**
 * Stock levels in the `pets` table. Lists walk the table by id in keyset pages, and updates go to a
 * group commit (see CommandQueue): each is read, checked, written and recorded (with its idempotency
 * outcome) in one transaction with the writes that arrived beside it.
 */
/** The named parameters of a page's query: its size, and the time what is reserved is read at. */
type PageQuery = { readonly size: number; readonly now: number };
type NextPageQuery = PageQuery & { readonly after: bigint };

export class SqliteInventoryRepository implements InventoryRepository {
  private readonly firstPage: Statement<[PageQuery], StockRow>;
  private readonly nextPage: Statement<[NextPageQuery], StockRow>;
  private readonly readEntry: Statement<[{ readonly id: bigint; readonly now: number }], EntryRow>;
  private readonly firstColumns: Statement<[PageQuery], ColumnsRow>;
  private readonly nextColumns: Statement<[NextPageQuery], ColumnsRow>;
  private readonly readReservation: Statement<[string], Parameters<typeof reservationOfRow>[0]>;
  private readonly holds: HoldStatements;
  private readonly lapsed: Statement<[{ readonly now: number }], LapseRow>;
  private readonly lapsedPets: Statement<[number, number], bigint>;
  private readonly filteredRows: FilteredInventoryPages<StockRow>;
  private readonly filteredColumns: FilteredInventoryPages<ColumnsRow>;
  private readonly named: NamedInventoryPages;
  /** The lapse read at the last stamp: it holds while the revision stays and no other hold lapses. */
  private lastLapse:
    | { readonly revision: string; readonly count: bigint; readonly untilMs: number; readonly stamp: string }
    | undefined;

  /**
   * `pets` is the revision of the `pets` table, shared with every other writer of it on `db`; `writes`
   * runs the stock writes, on `db` or on a connection of its own; `clock` is the time what is reserved
   * is read at.
   */
  constructor(
    db: Database,
    private readonly pets: StoreRevision,
    private readonly writes: CommandQueue,
    private readonly clock: Clock,
  ) {
    const columns = `id, quantity, status, ${RESERVED} AS reserved`;
    this.filteredRows = new FilteredInventoryPages(db, columns, RESERVED, ROWS);
    this.filteredColumns = new FilteredInventoryPages(db, columns, RESERVED, COLUMNS);
    this.named = new NamedInventoryPages(db, RESERVED);
    this.firstPage = db.prepare<[PageQuery], StockRow>(`SELECT ${columns} FROM pets ORDER BY id LIMIT @size`).raw();
    this.nextPage = db
      .prepare<[NextPageQuery], StockRow>(`SELECT ${columns} FROM pets WHERE id > @after ORDER BY id LIMIT @size`)
      .raw();
    this.readEntry = db
      .prepare<[{ readonly id: bigint; readonly now: number }], EntryRow>(
        `SELECT id, quantity, status, ${VERSION}, ${RESERVED} FROM pets WHERE id = @id`,
      )
      .raw();
    this.firstColumns = db
      .prepare<[PageQuery], ColumnsRow>(COLUMNS.select(`SELECT ${columns} FROM pets ORDER BY id LIMIT @size`))
      .raw();
    this.nextColumns = db
      .prepare<[NextPageQuery], ColumnsRow>(
        COLUMNS.select(`SELECT ${columns} FROM pets WHERE id > @after ORDER BY id LIMIT @size`),
      )
      .raw();
    this.readReservation = db
      .prepare<[string], Parameters<typeof reservationOfRow>[0]>(
        `SELECT ${RESERVATION_COLUMNS} FROM reservations WHERE id = ?`,
      )
      .raw();
    this.holds = holdStatements(db);
    // One statement, so one snapshot: the holds lapsed by a time, and when the next one lapses.
    this.lapsed = db
      .prepare<[{ readonly now: number }], LapseRow>(
        `SELECT (SELECT count(*) FROM reservations WHERE state = 'held' AND ${lapsedBy('expires_at_ms', '@now')}),
                (SELECT min(expires_at_ms) FROM reservations WHERE state = 'held' AND ${heldAt('expires_at_ms', '@now')})`,
      )
      .raw();
    this.lapsedPets = db
      .prepare<[number, number], bigint>(
        `SELECT DISTINCT pet_id FROM reservations WHERE state = 'held' AND ${lapsedBy('expires_at_ms', '?')} LIMIT ?`,
      )
      .pluck();
  }

  /**
   * Each chunk is one short query that starts after the last id yielded, so no read transaction or
   * open statement lasts from one chunk to the next, and rows added or changed meanwhile are seen
   * without being repeated or skipped. Between chunks the event loop gets a turn, so a long list does
   * not stall this process's other requests and writes.
   */
  list(query: InventoryQuery = {}): AsyncIterable<readonly InventoryItem[]> {
    const filtered = isFiltered(query);
    return keysetChunks(query, (after, size) => {
      const now = this.clock.nowMs();
      const rows = filtered
        ? this.filteredRows.page(query, after, size, now)
        : after === undefined
          ? this.firstPage.all({ size, now })
          : this.nextPage.all({ after, size, now });
      if (rows.length === 0) return undefined;
      // The rows are garbage once made items, before the yield: what outlives a young-generation
      // collection is promoted, and a long list would then swell the old space.
      const chunk = rows.map(itemOfRow);
      return { chunk, count: chunk.length, last: (chunk[chunk.length - 1] as InventoryItem).petId };
    });
  }

  /**
   * The same chunks as {@link list}, each as columns (see COLUMNS): a few values a chunk instead of a
   * bigint, a number, a status and an item a pet, which is what most of a long list's time went to. The
   * same short queries, turns and paging as `list`.
   */
  listColumns(query: InventoryQuery = {}): AsyncIterable<InventoryColumns> {
    const filtered = isFiltered(query);
    return keysetChunks(query, (after, size) => {
      const now = this.clock.nowMs();
      const rows = filtered
        ? this.filteredColumns.page(query, after, size, now)
        : [
            (after === undefined
              ? this.firstColumns.get({ size, now })
              : this.nextColumns.get({ after, size, now })) as ColumnsRow,
          ];
      const chunk = columnsOf(rows);
      return chunk === undefined ? undefined : { chunk, count: chunk.petIds.length, last: chunk.last };
    });
  }

  async listNamed(query: NamedInventoryQuery): Promise<readonly NamedInventoryItem[]> {
    return this.named.page(query, this.clock.nowMs());
  }

  async get(petId: PetId): Promise<InventoryEntry | undefined> {
    const row = this.readEntry.get({ id: petId, now: this.clock.nowMs() });
    return row === undefined ? undefined : entryOfRow(row);
  }

  /**
   * The revision of `pets`, and how many holds lapsed unmarked: an expiry changes the list without a
   * write. Given the writes, the holds that lapsed by a time only grow with it, so their count names them.
   */
  async stamp(): Promise<string> {
    const revision = this.pets.current();
    const nowMs = this.clock.nowMs();
    let lapse = this.lastLapse;
    // Every write of a hold writes its pet's row too, so moves the revision. Under one revision the
    // holds are fixed, and the count lapsed by now changes only when the next of them lapses: until
    // then (for ever, with none held) a stamp reads nothing but the revision.
    if (lapse === undefined || lapse.revision !== revision || hasLapsed(lapse.untilMs, nowMs)) {
      const [count, nextMs] = this.lapsed.get({ now: nowMs }) as LapseRow;
      const untilMs = nextMs === null ? Number.POSITIVE_INFINITY : Number(nextMs);
      // The stamp's text is made here, once a revision, not once a read.
      lapse = { revision, count, untilMs, stamp: `${revision}.${count}` };
      this.lastLapse = lapse;
    }
    return lapse.stamp;
  }

  write(command: StockCommand): Promise<StockWriteResult> {
    return this.writes.run('writeStock', command);
  }

  forgetExpiredOutcomes(nowMs: number, max: number): Promise<number> {
    return this.writes.run('forgetExpiredOutcomes', { nowMs, max });
  }

  writeReservation(command: ReservationCommand): Promise<ReservationWriteResult> {
    return this.writes.run('writeReservation', command);
  }

  async getReservation(id: string): Promise<Reservation | undefined> {
    const row = this.readReservation.get(id);
    return row === undefined ? undefined : reservationOfRow(row);
  }

  async listHolds(query: HoldQuery): Promise<readonly KeyedReservation[]> {
    return this.holds.list(query);
  }

  async nextHolder(after: string | undefined): Promise<string | undefined> {
    return this.holds.nextHolder(after);
  }

  /** Read on this connection: the pets are marked on the writer's, each in a transaction of its own. */
  async petsWithLapsedHolds(nowMs: number, max: number): Promise<readonly PetId[]> {
    return this.lapsedPets.all(nowMs, max) as PetId[];
  }

  markLapse(petId: PetId, nowMs: number): Promise<number> {
    return this.writes.run('markLapse', { petId, nowMs });
  }
}
