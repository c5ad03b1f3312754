import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Database, Statement } from 'better-sqlite3';
import type {
  IdempotencyClaim,
  InventoryQuery,
  InventoryRepository,
  StockWrite,
  StockWriteResult,
} from '../../application/ports/inventory-repository.js';
import { type InventoryItem, inventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { PetStatus } from '../../domain/pet-status.js';
import { type InventoryEntry, planStockWrite } from '../../domain/stock-write.js';
import { answerFromClaim, decodeOutcome, encodeOutcome, outcomeOf, resultOf } from '../shared/stock-outcome.js';
import { GroupCommit } from './group-commit.js';
import type { StoreRevision } from './store-revision.js';

/** The most entries one chunk of a list holds. */
const LIST_CHUNK = 1_000;

/**
 * A row of `pets` as the repository reads it: an array, which better-sqlite3 builds in about 60 % of
 * the time an object with named keys takes (measured on a 100-row list).
 */
type StockRow = readonly [id: bigint, quantity: bigint, status: string];

type EntryRow = readonly [id: bigint, quantity: bigint, status: string, version: bigint];

interface ClaimRow {
  readonly fingerprint: string;
  readonly outcome: string;
  readonly expires_at_ms: bigint;
}

/**
 * Makes an InventoryItem of a row; the domain re-checks it (the status is cast only for the type), so a
 * corrupt row throws instead of leaking.
 */
const itemOfRow = (row: StockRow): InventoryItem => inventoryItem(row[0], Number(row[1]), row[2] as PetStatus);

const entryOfRow = (row: EntryRow): InventoryEntry => ({
  item: inventoryItem(row[0], Number(row[1]), row[2] as PetStatus),
  version: Number(row[3]),
});

/**
 * Stock levels in the `pets` table. Lists walk the table by id in keyset pages, and updates go through
 * a group commit: each is read, checked, written and recorded (with its idempotency outcome) in one
 * transaction with the writes that arrived beside it.
 */
export class SqliteInventoryRepository implements InventoryRepository {
  private readonly firstPage: Statement<[number], StockRow>;
  private readonly nextPage: Statement<[bigint, number], StockRow>;
  private readonly readEntry: Statement<[bigint], EntryRow>;
  private readonly forgetExpired: Statement<[number, number]>;
  private readonly writes: GroupCommit<StockWrite, StockWriteResult>;

  /**
   * `pets` is the revision of the `pets` table, shared with every other writer of it on `db`;
   * `onGroupCommit` is told the number of writes each group commit carried.
   */
  constructor(
    db: Database,
    private readonly pets: StoreRevision,
    onGroupCommit?: (writes: number) => void,
  ) {
    this.firstPage = db.prepare<[number], StockRow>('SELECT id, quantity, status FROM pets ORDER BY id LIMIT ?').raw();
    this.nextPage = db
      .prepare<[bigint, number], StockRow>('SELECT id, quantity, status FROM pets WHERE id > ? ORDER BY id LIMIT ?')
      .raw();
    this.readEntry = db
      .prepare<[bigint], EntryRow>('SELECT id, quantity, status, version FROM pets WHERE id = ?')
      .raw();
    this.forgetExpired = db.prepare<[number, number]>(
      `DELETE FROM idempotency_claims WHERE (scope, key) IN
         (SELECT scope, key FROM idempotency_claims WHERE expires_at_ms <= ? LIMIT ?)`,
    );
    const store = db.prepare<[number, string, number, bigint]>(
      'UPDATE pets SET quantity = ?, status = ?, version = ? WHERE id = ?',
    );
    const record = db.prepare<[bigint, number, string, number, string, string, number]>(
      `INSERT INTO stock_changes
         (pet_id, before_quantity, before_status, after_quantity, after_status, actor, at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    const readClaim = db.prepare<[string, string], ClaimRow>(
      'SELECT fingerprint, outcome, expires_at_ms FROM idempotency_claims WHERE scope = ? AND key = ?',
    );
    // REPLACE: an expired claim of the same key is overwritten by the new one.
    const storeClaim = db.prepare<[string, string, string, string, number]>(
      `INSERT OR REPLACE INTO idempotency_claims (scope, key, fingerprint, outcome, expires_at_ms)
       VALUES (?, ?, ?, ?, ?)`,
    );
    const storedClaim = (claim: IdempotencyClaim) => {
      const row = readClaim.get(claim.scope, claim.key);
      if (row === undefined) return undefined;
      return {
        fingerprint: row.fingerprint,
        expiresAtMs: Number(row.expires_at_ms),
        outcome: decodeOutcome(row.outcome),
      };
    };
    this.writes = new GroupCommit(
      db,
      (command: StockWrite): StockWriteResult => {
        const claim = command.idempotency;
        if (claim !== undefined) {
          const answer = answerFromClaim(storedClaim(claim), claim, command.atMs);
          if (answer !== undefined) return answer;
        }
        const row = this.readEntry.get(command.petId);
        const plan = planStockWrite(
          row === undefined ? undefined : entryOfRow(row),
          command.quantity,
          command.ifVersion,
        );
        let changeId: bigint | undefined;
        if (plan.kind === 'write') {
          store.run(plan.after.quantity, plan.after.status, plan.version, command.petId);
          pets.bump();
          const { before, after } = plan;
          changeId = BigInt(
            record.run(
              command.petId,
              before.quantity,
              before.status,
              after.quantity,
              after.status,
              command.actor,
              command.atMs,
            ).lastInsertRowid,
          );
        }
        const outcome = outcomeOf(plan, command, changeId);
        if (claim !== undefined) {
          storeClaim.run(claim.scope, claim.key, claim.fingerprint, encodeOutcome(outcome), claim.expiresAtMs);
        }
        return resultOf(outcome, false);
      },
      onGroupCommit,
    );
  }

  /**
   * Each chunk is one short query that starts after the last id yielded, so no read transaction or
   * open statement lasts from one chunk to the next, and rows added or changed meanwhile are seen
   * without being repeated or skipped. Between chunks the event loop gets a turn, so a long list does
   * not stall this process's other requests and writes.
   */
  async *list(query: InventoryQuery = {}): AsyncIterable<readonly InventoryItem[]> {
    let after = query.after;
    let left = query.limit ?? Number.POSITIVE_INFINITY;
    while (left > 0) {
      const size = Math.min(LIST_CHUNK, left);
      const rows = after === undefined ? this.firstPage.all(size) : this.nextPage.all(after, size);
      if (rows.length === 0) return;
      const chunk = rows.map(itemOfRow);
      // Read before the yield, so that the rows are garbage while the consumer writes the chunk: what
      // outlives a young-generation collection is promoted, and a long list then swells the old space.
      const last = rows.length < size;
      left -= chunk.length;
      after = (chunk[chunk.length - 1] as InventoryItem).petId;
      yield chunk;
      if (last) return;
      await nextTurn();
    }
  }

  async get(petId: PetId): Promise<InventoryEntry | undefined> {
    const row = this.readEntry.get(petId);
    return row === undefined ? undefined : entryOfRow(row);
  }

  async stamp(): Promise<string> {
    return this.pets.current();
  }

  write(command: StockWrite): Promise<StockWriteResult> {
    return this.writes.submit(command);
  }

  async forgetExpiredOutcomes(nowMs: number, max: number): Promise<number> {
    return this.forgetExpired.run(nowMs, max).changes;
  }

  /** Commits the writes still waiting for their batch; the store calls it before closing. */
  flush(): void {
    this.writes.flush();
  }
}
