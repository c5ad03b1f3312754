import type { Clock } from '../../application/ports/clock.js';
import type { InventoryQuery, InventoryRepository } from '../../application/ports/inventory-repository.js';
import { type InventoryItem, inventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { PetStatus } from '../../domain/pet-status.js';
import type { Reservation } from '../../domain/reservation.js';
import type { ReservationCommand, ReservationWriteResult } from '../../domain/reservation-outcome.js';
import { firstPetOf, type IdempotencyClaim, type StockCommand } from '../../domain/stock-command.js';
import { type ClaimFound, decideStockWrite, type StockDecision } from '../../domain/stock-decision.js';
import type { StockWriteResult } from '../../domain/stock-outcome.js';
import type { InventoryEntry } from '../../domain/stock-write.js';
import { encodeOutcome, storedClaimOf } from '../shared/stock-outcome-json.js';
import { stripeOf } from './inventory-stamp.js';
import { type PostgresDatabase, prepared, type Queryable, type Transaction } from './postgres-database.js';
import {
  type EntryRow,
  entryOfRow,
  expireIn,
  holdingOf,
  markLapsed,
  readReservation,
  reservedAt,
  STAMP_AT,
  versionAt,
  writeReservationIn,
} from './postgres-reservation-statements.js';

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
// Inside a write, once the pet's lapsed holds are marked, what is held is what is reserved.
const LOCKED_ENTRY = prepared(
  'inventory_locked_entry_held',
  'SELECT id, quantity, status, version, held FROM pets WHERE id = $1 FOR NO KEY UPDATE',
);
// A command of several pets locks their rows in id order, so two such commands never wait on each other
// in a cycle. The ids travel as an array literal of decimal text: exact over the int64 range.
const LOCKED_ENTRIES = prepared(
  'inventory_locked_entries_held',
  'SELECT id, quantity, status, version, held FROM pets WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE',
);
const NEXT_CHANGE_ID = prepared(
  'inventory_next_change_id',
  "SELECT nextval(pg_get_serial_sequence('stock_changes', 'id'))",
);
const NEXT_CHANGE_IDS = prepared(
  'inventory_next_change_ids',
  "SELECT nextval(pg_get_serial_sequence('stock_changes', 'id')) FROM generate_series(1, $1)",
);
// A space joins scope and key: an Idempotency-Key is visible ASCII and a key id has none, so no two
// claims join alike.
const CLAIM_LOCK = prepared(
  'inventory_claim_lock',
  "SELECT pg_try_advisory_xact_lock(hashtextextended($1 || ' ' || $2, 0))",
);
const CLAIM_RECORD = prepared(
  'inventory_claim_record',
  'SELECT fingerprint, expires_at_ms, outcome FROM idempotency_records WHERE scope = $1 AND key = $2',
);
// One statement for the row, the history and the stamp's counter (see inventory-stamp.ts).
const WRITE = prepared(
  'inventory_write',
  `WITH updated AS (UPDATE pets SET quantity = $3, status = $4, version = $5 WHERE id = $2),
     counted AS (UPDATE inventory_stamps SET writes = writes + 1 WHERE stripe = $10)
   INSERT INTO stock_changes
     (id, pet_id, before_quantity, before_status, after_quantity, after_status, actor, at_ms, kind, reason)
   VALUES ($1, $2, $6, $7, $3, $4, $8, $9, $11, $12)`,
);
// An expired record of the same claim that was not purged yet is replaced.
const RECORD_OUTCOME = prepared(
  'inventory_record_outcome',
  `INSERT INTO idempotency_records (scope, key, fingerprint, outcome, expires_at_ms) VALUES ($1, $2, $3, $4, $5)
   ON CONFLICT (scope, key) DO UPDATE
     SET fingerprint = excluded.fingerprint, outcome = excluded.outcome, expires_at_ms = excluded.expires_at_ms`,
);

/** The most entries one chunk of a list holds. */
const LIST_CHUNK = 1_000;

type StockRow = [id: bigint, quantity: number, status: string, reserved: number];

/** The domain re-checks the row (the status is cast only for the type), so a corrupt row throws instead of leaking. */
const itemOfRow = (row: StockRow): InventoryItem => inventoryItem(row[0], row[1], row[2] as PetStatus, row[3]);

/**
 * Stock levels in the `pets` table, shared by every instance. A write is one transaction: the row is
 * locked, the domain's rule decides, the row, the history and (with a claim) the outcome are written.
 */
export class PostgresInventoryRepository implements InventoryRepository {
  /** `clock` is the time what is reserved is read at. */
  constructor(
    private readonly db: PostgresDatabase,
    private readonly clock: Clock,
  ) {}

  /**
   * Each chunk is one query that starts after the last id yielded, so no connection or transaction is
   * held from one chunk to the next, and memory holds one chunk whatever the table's size.
   */
  async *list(query: InventoryQuery = {}): AsyncIterable<readonly InventoryItem[]> {
    let after = query.after;
    let left = query.limit ?? Number.POSITIVE_INFINITY;
    while (left > 0) {
      const size = Math.min(LIST_CHUNK, left);
      const now = this.clock.nowMs();
      const rows =
        after === undefined
          ? await this.db.rows<StockRow>(FIRST_PAGE, [size, now])
          : await this.db.rows<StockRow>(NEXT_PAGE, [after, size, now]);
      if (rows.length === 0) return;
      const chunk = rows.map(itemOfRow);
      left -= chunk.length;
      after = (chunk[chunk.length - 1] as InventoryItem).petId;
      yield chunk;
      if (rows.length < size) return;
    }
  }

  async get(petId: PetId): Promise<InventoryEntry | undefined> {
    const [row] = await this.db.rows<EntryRow>(ENTRY, [petId, this.clock.nowMs()]);
    return row === undefined ? undefined : entryOfRow(row);
  }

  /** See STAMP_AT: exact across instances, and one small query. */
  async stamp(): Promise<string> {
    const [row] = await this.db.rows<[string]>(STAMP_AT, [this.clock.nowMs()]);
    return (row as [string])[0];
  }

  write(command: StockCommand): Promise<StockWriteResult> {
    return this.db.transaction((tx) => writeIn(tx, command));
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
    const claim = command.idempotency;
    return this.db.transaction((tx) =>
      writeReservationIn(
        tx,
        command,
        async () => (claim === undefined ? undefined : readClaim(tx, undefined, claim)),
        (claimed, text) =>
          tx.run(RECORD_OUTCOME, [claimed.scope, claimed.key, claimed.fingerprint, text, claimed.expiresAtMs]),
      ),
    );
  }

  getReservation(id: string): Promise<Reservation | undefined> {
    return readReservation(this.db, id);
  }

  expireReservations(nowMs: number, max: number): Promise<number> {
    return expireIn(this.db, nowMs, max);
  }
}

/**
 * Sends the claim's statements (not awaited: they travel with the rest of the first round trip). The
 * advisory lock is held until the transaction ends: another instance's write with the same claim holds
 * it while it runs, and a retry is told "in use" at once instead of queueing behind it.
 */
function readClaim(tx: Queryable, petId: PetId | undefined, claim: IdempotencyClaim): Promise<ClaimFound> {
  const lock = tx.rows<[boolean]>(CLAIM_LOCK, [claim.scope, claim.key]);
  const stored = tx.rows<[string, bigint, string]>(CLAIM_RECORD, [claim.scope, claim.key]);
  return Promise.all([lock, stored]).then(([[[held] = [false]], [row]]) => ({
    heldElsewhere: !held,
    stored: row === undefined ? undefined : storedClaimOf(row[0], Number(row[1]), row[2], petId),
  }));
}

/** Sends the reads of the orders' rows, locked, and answers their entries in the orders' order. */
function readEntries(tx: Queryable, command: StockCommand): Promise<(InventoryEntry | undefined)[]> {
  const { orders } = command;
  const [only] = orders;
  if (orders.length === 1 && only !== undefined) {
    return tx.rows<EntryRow>(LOCKED_ENTRY, [only.petId]).then(([row]) => [row && entryOfRow(row)]);
  }
  const ids = `{${orders.map((order) => order.petId).join(',')}}`;
  return tx.rows<EntryRow>(LOCKED_ENTRIES, [ids]).then((rows) => {
    const found = new Map(rows.map((row) => [row[0], entryOfRow(row)]));
    return orders.map((order) => found.get(order.petId));
  });
}

/** Sends the taking of one change id per order; taken once the row locks are held, they follow a pet's writes. */
function nextChangeIds(tx: Queryable, count: number): Promise<bigint[]> {
  const rows = count === 1 ? tx.rows<[bigint]>(NEXT_CHANGE_ID) : tx.rows<[bigint]>(NEXT_CHANGE_IDS, [count]);
  return rows.then((taken) => taken.map(([id]) => id).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * One command, in two round trips of a pipelined connection. First: BEGIN (sent by the transaction), the
 * claim's lock and record, the rows under FOR NO KEY UPDATE, and the next change ids (then, only for a
 * pet that holds reservations, its lapsed holds marked and its row read again). Then what the
 * core decided (see `apply`) and COMMIT. A refused or replayed write commits nothing but the lock's
 * release (and the sequence values it took, a gap in the ids).
 */
async function writeIn(tx: Transaction, command: StockCommand): Promise<StockWriteResult> {
  const claim = command.idempotency;
  const [found, read, changeIds] = await Promise.all([
    claim === undefined ? undefined : readClaim(tx, firstPetOf(command), claim),
    readEntries(tx, command),
    nextChangeIds(tx, command.orders.length),
  ]);
  // Only a pet that holds reservations costs more round trips: its lapsed holds are marked first.
  const marked = await markLapsed(tx, holdingOf(read), command.atMs);
  const entries = marked > 0 ? await readEntries(tx, command) : read;
  return apply(tx, decideStockWrite({ command, entries, claim: found, changeIds }));
}

/** Applies a decided write: each entry's row, history and stamp counter in one statement, the claim's outcome, COMMIT. */
async function apply(tx: Transaction, { result, written, claimed }: StockDecision): Promise<StockWriteResult> {
  const sent: Promise<unknown>[] = written.map(({ change, version }) =>
    tx.run(WRITE, [
      change.id,
      change.after.petId,
      change.after.quantity,
      change.after.status,
      version,
      change.before.quantity,
      change.before.status,
      change.actor,
      change.atMs,
      stripeOf(change.after.petId),
      change.kind,
      change.reason,
    ]),
  );
  if (claimed !== undefined) {
    const { claim, outcome } = claimed;
    sent.push(
      tx.run(RECORD_OUTCOME, [claim.scope, claim.key, claim.fingerprint, encodeOutcome(outcome), claim.expiresAtMs]),
    );
  }
  await Promise.all([...sent, tx.commit()]);
  return result;
}
