import type {
  InventoryQuery,
  InventoryRepository,
  StockWrite,
  StockWriteResult,
} from '../../application/ports/inventory-repository.js';
import { type InventoryItem, inventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { PetStatus } from '../../domain/pet-status.js';
import { fail } from '../../domain/result.js';
import { type InventoryEntry, planStockWrite } from '../../domain/stock-write.js';
import { answerFromClaim, decodeOutcome, encodeOutcome, outcomeOf, resultOf } from '../shared/stock-outcome.js';
import { STAMP_QUERY, stripeOf } from './inventory-stamp.js';
import type { PostgresDatabase, Queryable } from './postgres-database.js';

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
          ? await this.db.rows<StockRow>('SELECT id, quantity, status FROM pets ORDER BY id LIMIT $1', [size])
          : await this.db.rows<StockRow>('SELECT id, quantity, status FROM pets WHERE id > $1 ORDER BY id LIMIT $2', [
              after,
              size,
            ]);
      if (rows.length === 0) return;
      const chunk = rows.map(itemOfRow);
      left -= chunk.length;
      after = (chunk[chunk.length - 1] as InventoryItem).petId;
      yield chunk;
      if (rows.length < size) return;
    }
  }

  async get(petId: PetId): Promise<InventoryEntry | undefined> {
    const [row] = await this.db.rows<EntryRow>('SELECT id, quantity, status, version FROM pets WHERE id = $1', [petId]);
    return row === undefined ? undefined : entryOfRow(row);
  }

  /** See STAMP_QUERY: exact across instances, and one small query. */
  async stamp(): Promise<string> {
    const [row] = await this.db.rows<[string]>(STAMP_QUERY);
    return (row as [string])[0];
  }

  write(command: StockWrite): Promise<StockWriteResult> {
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
 * What the claim of `command` finds, if it carries one: another instance's write under way with the same
 * claim (in use), a stored outcome to replay, a refusal, or nothing (the write goes ahead).
 */
async function claimed(tx: Queryable, command: StockWrite): Promise<StockWriteResult | undefined> {
  const claim = command.idempotency;
  if (claim === undefined) return undefined;
  // Held until the transaction ends. Another instance's write with the same claim holds it while it
  // runs: that retry is told "in use" at once instead of queueing behind it. A space joins the two: an
  // Idempotency-Key is visible ASCII and a key id has none, so no two claims join alike.
  const [[held] = [false]] = await tx.rows<[boolean]>(
    "SELECT pg_try_advisory_xact_lock(hashtextextended($1 || ' ' || $2, 0))",
    [claim.scope, claim.key],
  );
  if (!held) return fail({ code: 'idempotency_key_in_use' });
  const [row] = await tx.rows<[string, bigint, string]>(
    'SELECT fingerprint, expires_at_ms, outcome FROM idempotency_records WHERE scope = $1 AND key = $2',
    [claim.scope, claim.key],
  );
  const stored =
    row === undefined
      ? undefined
      : { fingerprint: row[0], expiresAtMs: Number(row[1]), outcome: decodeOutcome(row[2]) };
  return answerFromClaim(stored, claim, command.atMs);
}

/** One write, inside its transaction. */
async function writeIn(tx: Queryable, command: StockWrite): Promise<StockWriteResult> {
  const earlier = await claimed(tx, command);
  if (earlier !== undefined) return earlier;
  const [row] = await tx.rows<EntryRow>('SELECT id, quantity, status, version FROM pets WHERE id = $1 FOR UPDATE', [
    command.petId,
  ]);
  const plan = planStockWrite(row === undefined ? undefined : entryOfRow(row), command.quantity, command.ifVersion);
  let changeId: bigint | undefined;
  if (plan.kind === 'write') {
    const { before, after, version } = plan;
    const [inserted] = await tx.rows<[bigint]>(
      // One round trip: the row, the history and the stamp's counter (see inventory-stamp.ts).
      `WITH updated AS (UPDATE pets SET quantity = $2, status = $3, version = $4 WHERE id = $1),
         counted AS (UPDATE inventory_stamps SET writes = writes + 1 WHERE stripe = $9)
       INSERT INTO stock_changes (pet_id, before_quantity, before_status, after_quantity, after_status, actor, at_ms)
       VALUES ($1, $5, $6, $2, $3, $7, $8) RETURNING id`,
      [
        command.petId,
        after.quantity,
        after.status,
        version,
        before.quantity,
        before.status,
        command.actor,
        command.atMs,
        stripeOf(command.petId),
      ],
    );
    changeId = inserted?.[0];
  }
  const outcome = outcomeOf(plan, command, changeId);
  const claim = command.idempotency;
  if (claim !== undefined) {
    // An expired record of the same claim that was not purged yet is replaced.
    await tx.run(
      `INSERT INTO idempotency_records (scope, key, fingerprint, outcome, expires_at_ms) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (scope, key) DO UPDATE
         SET fingerprint = excluded.fingerprint, outcome = excluded.outcome, expires_at_ms = excluded.expires_at_ms`,
      [claim.scope, claim.key, claim.fingerprint, encodeOutcome(outcome), claim.expiresAtMs],
    );
  }
  return resultOf(outcome, false);
}
