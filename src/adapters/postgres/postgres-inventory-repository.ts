import type { InventoryQuery, InventoryRepository } from '../../application/ports/inventory-repository.js';
import { type InventoryItem, inventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { PetStatus } from '../../domain/pet-status.js';
import { firstPetOf, type IdempotencyClaim, type StockCommand } from '../../domain/stock-command.js';
import { type ClaimFound, decideStockWrite, type StockDecision } from '../../domain/stock-decision.js';
import type { StockWriteResult } from '../../domain/stock-outcome.js';
import type { InventoryEntry } from '../../domain/stock-write.js';
import { decodeOutcome, encodeOutcome } from '../shared/stock-outcome-json.js';
import { STAMP, stripeOf } from './inventory-stamp.js';
import { type PostgresDatabase, prepared, type Queryable, type Transaction } from './postgres-database.js';

// The statements of the request path, parsed and planned once per connection.
const FIRST_PAGE = prepared('inventory_first_page', 'SELECT id, quantity, status FROM pets ORDER BY id LIMIT $1');
const NEXT_PAGE = prepared(
  'inventory_next_page',
  'SELECT id, quantity, status FROM pets WHERE id > $1 ORDER BY id LIMIT $2',
);
const ENTRY = prepared('inventory_entry', 'SELECT id, quantity, status, version FROM pets WHERE id = $1');
const LOCKED_ENTRY = prepared(
  'inventory_locked_entry',
  'SELECT id, quantity, status, version FROM pets WHERE id = $1 FOR NO KEY UPDATE',
);
// A command of several pets locks their rows in id order, so two such commands never wait on each other
// in a cycle. The ids travel as an array literal of decimal text: exact over the int64 range.
const LOCKED_ENTRIES = prepared(
  'inventory_locked_entries',
  'SELECT id, quantity, status, version FROM pets WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE',
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

type StockRow = [id: bigint, quantity: number, status: string];
type EntryRow = [id: bigint, quantity: number, status: string, version: bigint];

/** The domain re-checks the row (the status is cast only for the type), so a corrupt row throws instead of leaking. */
const itemOfRow = (row: StockRow | EntryRow): InventoryItem => inventoryItem(row[0], row[1], row[2] as PetStatus);
const entryOfRow = (row: EntryRow): InventoryEntry => ({ item: itemOfRow(row), version: Number(row[3]) });

/**
 * Stock levels in the `pets` table, shared by every instance. A write is one transaction: the row is
 * locked, the domain's rule decides, the row, the history and (with a claim) the outcome are written.
 */
export class PostgresInventoryRepository implements InventoryRepository {
  constructor(private readonly db: PostgresDatabase) {}

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

  /** See STAMP: exact across instances, and one small query. */
  async stamp(): Promise<string> {
    const [row] = await this.db.rows<[string]>(STAMP);
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
}

/**
 * Sends the claim's statements (not awaited: they travel with the rest of the first round trip). The
 * advisory lock is held until the transaction ends: another instance's write with the same claim holds
 * it while it runs, and a retry is told "in use" at once instead of queueing behind it.
 */
function readClaim(tx: Queryable, command: StockCommand, claim: IdempotencyClaim): Promise<ClaimFound> {
  const lock = tx.rows<[boolean]>(CLAIM_LOCK, [claim.scope, claim.key]);
  const stored = tx.rows<[string, bigint, string]>(CLAIM_RECORD, [claim.scope, claim.key]);
  return Promise.all([lock, stored]).then(([[[held] = [false]], [row]]) => ({
    heldElsewhere: !held,
    stored:
      row === undefined
        ? undefined
        : { fingerprint: row[0], expiresAtMs: Number(row[1]), outcome: decodeOutcome(row[2], firstPetOf(command)) },
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
 * claim's lock and record, the rows under FOR NO KEY UPDATE, and the next change ids. Then what the
 * core decided (see `apply`) and COMMIT. A refused or replayed write commits nothing but the lock's
 * release (and the sequence values it took, a gap in the ids).
 */
async function writeIn(tx: Transaction, command: StockCommand): Promise<StockWriteResult> {
  const claim = command.idempotency;
  const [found, entries, changeIds] = await Promise.all([
    claim === undefined ? undefined : readClaim(tx, command, claim),
    readEntries(tx, command),
    nextChangeIds(tx, command.orders.length),
  ]);
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
