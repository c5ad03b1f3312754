import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Database, Statement } from 'better-sqlite3';
import type { InventoryQuery, InventoryRepository } from '../../application/ports/inventory-repository.js';
import { type InventoryItem, inventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { PetStatus } from '../../domain/pet-status.js';
import type { StockCommand } from '../../domain/stock-command.js';
import type { StockWriteResult } from '../../domain/stock-outcome.js';
import type { InventoryEntry } from '../../domain/stock-write.js';
import type { CommandQueue } from './command-queue.js';
import { type EntryRow, entryOfRow } from './stock-command-statements.js';
import type { StoreRevision } from './store-revision.js';

/** The most entries one chunk of a list holds. */
const LIST_CHUNK = 1_000;

/**
 * A row of `pets` as the repository reads it: an array, which better-sqlite3 builds in about 60 % of
 * the time an object with named keys takes (measured on a 100-row list).
 */
type StockRow = readonly [id: bigint, quantity: bigint, status: string];

/**
 * Makes an InventoryItem of a row; the domain re-checks it (the status is cast only for the type), so a
 * corrupt row throws instead of leaking.
 */
const itemOfRow = (row: StockRow): InventoryItem => inventoryItem(row[0], Number(row[1]), row[2] as PetStatus);

// Each entry's JSON text in `itemJson`'s shape, written by SQLite. The STRICT table's CHECKs hold status
// to the three names and quantity to a whole number in range (and an INTEGER PRIMARY KEY is an int64, as
// a PetId is); should a row escape the CHECKs, the CASE gives NULL, which the listing refuses.
const ITEM_JSON = `'{"petId":' || id || ',"quantity":' || quantity || CASE status
    WHEN 'available' THEN ',"status":"available"}'
    WHEN 'pending' THEN ',"status":"pending"}'
    WHEN 'sold' THEN ',"status":"sold"}' END`;

/** The petId of an item's JSON text as ITEM_JSON writes it: the digits after `{"petId":`. */
const petIdOfJson = (json: string): PetId => BigInt(json.slice(9, json.indexOf(',', 9))) as PetId;

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
export class SqliteInventoryRepository implements InventoryRepository {
  private readonly firstPage: Statement<[number], StockRow>;
  private readonly nextPage: Statement<[bigint, number], StockRow>;
  private readonly readEntry: Statement<[bigint], EntryRow>;
  private readonly firstJsonPage: Statement<[number], string | null>;
  private readonly nextJsonPage: Statement<[bigint, number], string | null>;

  /**
   * `pets` is the revision of the `pets` table, shared with every other writer of it on `db`; `writes`
   * runs the stock writes, on `db` or on a connection of its own.
   */
  constructor(
    db: Database,
    private readonly pets: StoreRevision,
    private readonly writes: CommandQueue,
  ) {
    this.firstPage = db.prepare<[number], StockRow>('SELECT id, quantity, status FROM pets ORDER BY id LIMIT ?').raw();
    this.nextPage = db
      .prepare<[bigint, number], StockRow>('SELECT id, quantity, status FROM pets WHERE id > ? ORDER BY id LIMIT ?')
      .raw();
    this.readEntry = db
      .prepare<[bigint], EntryRow>('SELECT id, quantity, status, version FROM pets WHERE id = ?')
      .raw();
    this.firstJsonPage = db
      .prepare<[number], string | null>(`SELECT ${ITEM_JSON} FROM pets ORDER BY id LIMIT ?`)
      .pluck();
    this.nextJsonPage = db
      .prepare<[bigint, number], string | null>(`SELECT ${ITEM_JSON} FROM pets WHERE id > ? ORDER BY id LIMIT ?`)
      .pluck();
  }

  /**
   * Each chunk is one short query that starts after the last id yielded, so no read transaction or
   * open statement lasts from one chunk to the next, and rows added or changed meanwhile are seen
   * without being repeated or skipped. Between chunks the event loop gets a turn, so a long list does
   * not stall this process's other requests and writes.
   */
  list(query: InventoryQuery = {}): AsyncIterable<readonly InventoryItem[]> {
    return keysetChunks(query, (after, size) => {
      const rows = after === undefined ? this.firstPage.all(size) : this.nextPage.all(after, size);
      if (rows.length === 0) return undefined;
      // The rows are garbage once made items, before the yield: what outlives a young-generation
      // collection is promoted, and a long list would then swell the old space.
      const chunk = rows.map(itemOfRow);
      return { chunk, count: chunk.length, last: (chunk[chunk.length - 1] as InventoryItem).petId };
    });
  }

  /**
   * The same chunks as {@link list}, each as its items' JSON text written by SQLite (see the HTTP
   * adapter's InventoryJsonSource): a string a pet, joined, instead of a bigint, a number, a status and
   * an item a pet turned into text, which is what most of a long list's time went to (about 0.5 against 1.1
   * to 2 µs of CPU a pet: `npm run bench`, scale section). The same short queries, turns and paging as `list`.
   */
  listJson(query: InventoryQuery = {}): AsyncIterable<string> {
    return keysetChunks(query, (after, size) => {
      const items = after === undefined ? this.firstJsonPage.all(size) : this.nextJsonPage.all(after, size);
      if (items.length === 0) return undefined;
      if (items.includes(null)) throw new RangeError('a stored inventory entry is not a valid InventoryItem');
      return { chunk: items.join(','), count: items.length, last: petIdOfJson(items[items.length - 1] as string) };
    });
  }

  async get(petId: PetId): Promise<InventoryEntry | undefined> {
    const row = this.readEntry.get(petId);
    return row === undefined ? undefined : entryOfRow(row);
  }

  async stamp(): Promise<string> {
    return this.pets.current();
  }

  write(command: StockCommand): Promise<StockWriteResult> {
    return this.writes.write(command);
  }

  forgetExpiredOutcomes(nowMs: number, max: number): Promise<number> {
    return this.writes.forgetExpiredOutcomes(nowMs, max);
  }
}
