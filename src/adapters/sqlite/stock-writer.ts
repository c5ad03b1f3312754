import type { Database, Statement } from 'better-sqlite3';
import type { IdempotencyClaim, StockWrite, StockWriteResult } from '../../application/ports/inventory-repository.js';
import { inventoryItem } from '../../domain/inventory-item.js';
import type { PetStatus } from '../../domain/pet-status.js';
import { type InventoryEntry, planStockWrite } from '../../domain/stock-write.js';
import {
  answerFromClaim,
  decodeOutcome,
  encodeOutcome,
  outcomeOf,
  resultOf,
  type StoredClaim,
} from '../shared/stock-outcome.js';

/** A row of `pets` with its version, read as an array (cheaper than an object with named keys). */
export type EntryRow = readonly [id: bigint, quantity: bigint, status: string, version: bigint];

/** The row's entry; the domain re-checks it (the status is cast only for the type), so a corrupt row throws. */
export const entryOfRow = (row: EntryRow): InventoryEntry => ({
  item: inventoryItem(row[0], Number(row[1]), row[2] as PetStatus),
  version: Number(row[3]),
});

interface ClaimRow {
  readonly fingerprint: string;
  readonly outcome: string;
  readonly expires_at_ms: bigint;
}

/**
 * The writes of stock on one connection: a stock write (claim check, the domain's plan, the row, the
 * history record, the claim's outcome) and the purge of expired outcomes. It opens no transaction: the
 * group commit around `write` does, on whichever thread holds the connection.
 */
export class StockWriter {
  private readonly readEntry: Statement<[bigint], EntryRow>;
  private readonly store: Statement<[number, string, number, bigint]>;
  private readonly record: Statement<[bigint, number, string, number, string, string, number]>;
  private readonly readClaim: Statement<[string, string], ClaimRow>;
  private readonly storeClaim: Statement<[string, string, string, string, number]>;
  private readonly forgetExpired: Statement<[number, number]>;

  /** `onWrite` is told of every row this connection changes, inside its transaction. */
  constructor(
    db: Database,
    private readonly onWrite: () => void = () => {},
  ) {
    this.readEntry = db
      .prepare<[bigint], EntryRow>('SELECT id, quantity, status, version FROM pets WHERE id = ?')
      .raw();
    this.store = db.prepare<[number, string, number, bigint]>(
      'UPDATE pets SET quantity = ?, status = ?, version = ? WHERE id = ?',
    );
    this.record = db.prepare<[bigint, number, string, number, string, string, number]>(
      `INSERT INTO stock_changes
         (pet_id, before_quantity, before_status, after_quantity, after_status, actor, at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.readClaim = db.prepare<[string, string], ClaimRow>(
      'SELECT fingerprint, outcome, expires_at_ms FROM idempotency_claims WHERE scope = ? AND key = ?',
    );
    // REPLACE: an expired claim of the same key is overwritten by the new one.
    this.storeClaim = db.prepare<[string, string, string, string, number]>(
      `INSERT OR REPLACE INTO idempotency_claims (scope, key, fingerprint, outcome, expires_at_ms)
       VALUES (?, ?, ?, ?, ?)`,
    );
    this.forgetExpired = db.prepare<[number, number]>(
      `DELETE FROM idempotency_claims WHERE (scope, key) IN
         (SELECT scope, key FROM idempotency_claims WHERE expires_at_ms <= ? LIMIT ?)`,
    );
  }

  /** One stock write, to run inside a transaction; a corrupt row throws rather than being written over. */
  write(command: StockWrite): StockWriteResult {
    const claim = command.idempotency;
    if (claim !== undefined) {
      const answer = answerFromClaim(this.storedClaim(claim), claim, command.atMs);
      if (answer !== undefined) return answer;
    }
    const row = this.readEntry.get(command.petId);
    const plan = planStockWrite(row === undefined ? undefined : entryOfRow(row), command.quantity, command.ifVersion);
    let changeId: bigint | undefined;
    if (plan.kind === 'write') {
      const { before, after } = plan;
      this.store.run(after.quantity, after.status, plan.version, command.petId);
      this.onWrite();
      changeId = BigInt(
        this.record.run(
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
      this.storeClaim.run(claim.scope, claim.key, claim.fingerprint, encodeOutcome(outcome), claim.expiresAtMs);
    }
    return resultOf(outcome, false);
  }

  /** Forgets at most `max` outcomes expired at `nowMs`, in a transaction of its own; returns how many. */
  forgetExpiredOutcomes(nowMs: number, max: number): number {
    return this.forgetExpired.run(nowMs, max).changes;
  }

  private storedClaim(claim: IdempotencyClaim): StoredClaim | undefined {
    const row = this.readClaim.get(claim.scope, claim.key);
    if (row === undefined) return undefined;
    return {
      fingerprint: row.fingerprint,
      expiresAtMs: Number(row.expires_at_ms),
      outcome: decodeOutcome(row.outcome),
    };
  }
}
