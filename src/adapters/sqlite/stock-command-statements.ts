import type { Database, Statement } from 'better-sqlite3';
import type { PetId } from '../../domain/pet-id.js';
import type { ReservationCommand, ReservationWriteResult } from '../../domain/reservation-outcome.js';
import type { StockChange } from '../../domain/stock-change.js';
import { firstPetOf, type IdempotencyClaim, type StockCommand } from '../../domain/stock-command.js';
import { decideStockWrite, type StockDecision, type StoredClaim } from '../../domain/stock-decision.js';
import type { StockWriteResult } from '../../domain/stock-outcome.js';
import { encodeOutcome, storedClaimOf } from '../sql/stock-outcome-json.js';
import { ReservationStatements } from './reservation-statements.js';

interface ClaimRow {
  readonly fingerprint: string;
  readonly outcome: string;
  readonly expires_at_ms: bigint;
}

/**
 * The writes of stock on one connection: a stock command (its claim and entries read, the core's
 * decision, and what it decided applied), a reservation write, and the purge of expired outcomes. It
 * opens no transaction: the group commit around a write does, on whichever thread holds the connection
 * (store-operations.ts names what runs where).
 */
export class StockCommandStatements {
  /** The reservation writes on the same connection: a write's entries, a reservation, a pet's lapse. */
  readonly reservations: ReservationStatements;
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
    this.reservations = new ReservationStatements(db, onWrite);
    // The write lock is held (the group commit's transaction is IMMEDIATE), so no other connection can
    // take the ids that follow; rows of stock_changes are never deleted, so none is ever reused.
    this.lastChangeId = db.prepare<[], bigint | null>('SELECT max(seq) FROM stock_changes').pluck();
    // The writes of every command run without safe integers: what `run` answers is read by nothing,
    // and its `lastInsertRowid` was a bigint a call. (RETURNING NULL with `get` answered nothing at all,
    // but SQLite's RETURNING cost about 0.5 µs a statement more, measured.)
    this.store = db
      .prepare<[number, string, number, bigint]>('UPDATE pets SET quantity = ?, status = ?, version = ? WHERE id = ?')
      .safeIntegers(false);
    this.record = db
      .prepare<[bigint, bigint, string, number, string, number, string, string, number, string | null]>(
        `INSERT INTO stock_changes
           (seq, pet_id, kind, before_quantity, before_status, after_quantity, after_status, actor, at_ms, reason)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .safeIntegers(false);
    this.readClaim = db.prepare<[string, string], ClaimRow>(
      'SELECT fingerprint, outcome, expires_at_ms FROM idempotency_claims WHERE scope = ? AND key = ?',
    );
    // REPLACE: an expired claim of the same key is overwritten by the new one.
    this.storeClaim = db
      .prepare<[string, string, string, string, number]>(
        `INSERT OR REPLACE INTO idempotency_claims (scope, key, fingerprint, outcome, expires_at_ms)
         VALUES (?, ?, ?, ?, ?)`,
      )
      .safeIntegers(false);
    this.forgetExpired = db.prepare<[number, number]>(
      `DELETE FROM idempotency_claims WHERE (scope, key) IN
         (SELECT scope, key FROM idempotency_claims WHERE expires_at_ms <= ? LIMIT ?)`,
    );
  }

  /** One stock command, to run inside a transaction; a corrupt row throws rather than being written over. */
  writeStock(command: StockCommand): StockWriteResult {
    const { orders, idempotency: claim } = command;
    const lastId = this.lastChangeId.get() ?? 0n;
    const first = orders[0];
    // A one-pet command (nearly every one) makes its lists as literals: `map` allocates through its
    // callback, and BigInt(1) is a bigint of its own where `1n` is a constant.
    const one = orders.length === 1 && first !== undefined;
    return this.apply(
      decideStockWrite({
        command,
        entries: one
          ? [this.reservations.entryAt(first.petId, command.atMs)]
          : orders.map((order) => this.reservations.entryAt(order.petId, command.atMs)),
        claim:
          claim === undefined
            ? undefined
            : { stored: this.storedClaim(firstPetOf(command), claim), heldElsewhere: false },
        changeIds: one ? [lastId + 1n] : orders.map((_, i) => lastId + BigInt(i + 1)),
      }),
    );
  }

  /** One reservation write, to run inside a transaction: decided and applied, its change and claim stored. */
  writeReservation(command: ReservationCommand): ReservationWriteResult {
    const claim = command.idempotency;
    const found =
      claim === undefined ? undefined : { stored: this.storedClaim(undefined, claim), heldElsewhere: false };
    const decision = this.reservations.decide(command, found, (this.lastChangeId.get() ?? 0n) + 1n);
    if (decision.change !== undefined) this.recordChange(decision.change);
    if (decision.claimed !== undefined) this.storeOutcome(decision.claimed.claim, decision.claimed.outcome);
    return decision.result;
  }

  /** Forgets at most `max` outcomes expired at `nowMs`, in a transaction of its own; returns how many. */
  forgetExpiredOutcomes(nowMs: number, max: number): number {
    return this.forgetExpired.run(nowMs, max).changes;
  }

  /** Applies a decided write inside the caller's transaction. */
  private apply({ result, written, claimed }: StockDecision): StockWriteResult {
    for (const { change, version } of written) {
      const { after } = change;
      this.store.run(after.quantity, after.status, version, after.petId);
      this.recordChange(change);
    }
    if (written.length > 0) this.onWrite();
    if (claimed !== undefined) this.storeOutcome(claimed.claim, claimed.outcome);
    return result;
  }

  private recordChange(change: StockChange): void {
    const { before, after } = change;
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

  private storeOutcome(claim: IdempotencyClaim, outcome: StoredClaim['outcome']): void {
    this.storeClaim.run(claim.scope, claim.key, claim.fingerprint, encodeOutcome(outcome), claim.expiresAtMs);
  }

  /** The claim stored for the key; `petId` is the request's pet, for outcomes of 1.1 (see decodeOutcome). */
  private storedClaim(petId: PetId | undefined, claim: IdempotencyClaim): StoredClaim | undefined {
    const row = this.readClaim.get(claim.scope, claim.key);
    if (row === undefined) return undefined;
    return storedClaimOf(row.fingerprint, Number(row.expires_at_ms), row.outcome, petId);
  }
}
