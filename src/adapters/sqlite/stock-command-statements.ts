import type { Database, Statement } from 'better-sqlite3';
import { inventoryItem } from '../../domain/inventory-item.js';
import type { PetStatus } from '../../domain/pet-status.js';
import { firstPetOf, type IdempotencyClaim, type StockCommand } from '../../domain/stock-command.js';
import { decideStockWrite, type StockDecision, type StoredClaim } from '../../domain/stock-decision.js';
import type { StockWriteResult } from '../../domain/stock-outcome.js';
import type { InventoryEntry } from '../../domain/stock-write.js';
import { decodeOutcome, encodeOutcome } from '../shared/stock-outcome-json.js';

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
 * The writes of stock on one connection: a stock command (its claim and entries read, the core's
 * decision, and what it decided applied) and the purge of expired outcomes. It opens no transaction: the
 * group commit around `write` does, on whichever thread holds the connection.
 */
export class StockCommandStatements {
  private readonly readEntry: Statement<[bigint], EntryRow>;
  private readonly lastChangeId: Statement<[], bigint | null>;
  private readonly store: Statement<[number, string, number, bigint]>;
  private readonly record: Statement<
    [bigint, bigint, string, number, string, number, string, string, number, string | null]
  >;
  private readonly readClaim: Statement<[string, string], ClaimRow>;
  private readonly storeClaim: Statement<[string, string, string, string, number]>;
  private readonly forgetExpired: Statement<[number, number]>;

  /** `onWrite` is told of every command that changes rows on this connection, inside its transaction. */
  constructor(
    db: Database,
    private readonly onWrite: () => void = () => {},
  ) {
    this.readEntry = db
      .prepare<[bigint], EntryRow>('SELECT id, quantity, status, version FROM pets WHERE id = ?')
      .raw();
    // The write lock is held (the group commit's transaction is IMMEDIATE), so no other connection can
    // take the ids that follow; rows of stock_changes are never deleted, so none is ever reused.
    this.lastChangeId = db.prepare<[], bigint | null>('SELECT max(seq) FROM stock_changes').pluck();
    this.store = db.prepare<[number, string, number, bigint]>(
      'UPDATE pets SET quantity = ?, status = ?, version = ? WHERE id = ?',
    );
    this.record = db.prepare<[bigint, bigint, string, number, string, number, string, string, number, string | null]>(
      `INSERT INTO stock_changes
         (seq, pet_id, kind, before_quantity, before_status, after_quantity, after_status, actor, at_ms, reason)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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

  /** One stock command, to run inside a transaction; a corrupt row throws rather than being written over. */
  write(command: StockCommand): StockWriteResult {
    const claim = command.idempotency;
    const lastId = this.lastChangeId.get() ?? 0n;
    return this.apply(
      decideStockWrite({
        command,
        entries: command.orders.map((order) => {
          const row = this.readEntry.get(order.petId);
          return row === undefined ? undefined : entryOfRow(row);
        }),
        claim: claim === undefined ? undefined : { stored: this.storedClaim(command, claim), heldElsewhere: false },
        changeIds: command.orders.map((_, i) => lastId + BigInt(i + 1)),
      }),
    );
  }

  /** Forgets at most `max` outcomes expired at `nowMs`, in a transaction of its own; returns how many. */
  forgetExpiredOutcomes(nowMs: number, max: number): number {
    return this.forgetExpired.run(nowMs, max).changes;
  }

  /** Applies a decided write inside the caller's transaction. */
  private apply({ result, written, claimed }: StockDecision): StockWriteResult {
    for (const { change, version } of written) {
      const { before, after } = change;
      this.store.run(after.quantity, after.status, version, after.petId);
      this.record.run(
        change.id,
        after.petId,
        change.kind,
        before.quantity,
        before.status,
        after.quantity,
        after.status,
        change.actor,
        change.atMs,
        change.reason,
      );
    }
    if (written.length > 0) this.onWrite();
    if (claimed !== undefined) {
      const { claim, outcome } = claimed;
      this.storeClaim.run(claim.scope, claim.key, claim.fingerprint, encodeOutcome(outcome), claim.expiresAtMs);
    }
    return result;
  }

  private storedClaim(command: StockCommand, claim: IdempotencyClaim): StoredClaim | undefined {
    const row = this.readClaim.get(claim.scope, claim.key);
    if (row === undefined) return undefined;
    return {
      fingerprint: row.fingerprint,
      expiresAtMs: Number(row.expires_at_ms),
      outcome: decodeOutcome(row.outcome, firstPetOf(command)),
    };
  }
}
