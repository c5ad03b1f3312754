import { inventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { PetStatus } from '../../domain/pet-status.js';
import { lapseOf, type Reservation } from '../../domain/reservation.js';
import { firstPetOf, type StockCommand } from '../../domain/stock-command.js';
import { type ClaimFound, decideStockWrite, type StockDecision } from '../../domain/stock-decision.js';
import type { StockWriteResult } from '../../domain/stock-outcome.js';
import type { InventoryEntry } from '../../domain/stock-write.js';
import { encodeOutcome, storedClaimOf } from '../sql/stock-outcome-json.js';
import { stripeOf } from './inventory-stamp.js';
import type { PostgresDatabase, Queryable, SqlValue } from './postgres-database.js';
import {
  LOCK_ROWS,
  READ,
  READ_CLAIMED,
  READ_ONE,
  READ_ONE_CLAIMED,
  UNLOCK_CLAIM,
  WRITE,
  WRITE_CLAIMED,
  WRITE_ONE,
  WRITE_ONE_CLAIMED,
} from './stock-write-statements.js';

/**
 * How many times a write reads, decides and applies in autocommit before it takes the rows' locks
 * instead: each miss means another write to one of its pets committed meanwhile, so the service as a
 * whole moves on, but one write on a hot pet could otherwise miss for as long as the load lasts.
 */
const OPTIMISTIC_ATTEMPTS = 2;

/** A reservation stored as held whose time is up, as the reads send it: id, quantity, created and expiry times. */
export type HoldJson = [id: string, quantity: number, createdAtMs: number, expiresAtMs: number];

type ReadRow = [
  quantity: number | null,
  status: string | null,
  version: bigint | null,
  changeId: bigint,
  held: number | null,
  holds: HoldJson[] | null,
  fingerprint?: string | null,
  expiresAtMs?: bigint | null,
  outcome?: string | null,
  locked?: boolean | null,
];

/** A pet's row as read: the entry the core decides on, and what the write needs of the row itself. */
interface ReadEntry {
  /** As at the command's time: its lapsed holds no longer reserve, and each moved the version. */
  readonly entry: InventoryEntry;
  /** The version stored in the row, which the write is conditional on. */
  readonly storedVersion: bigint;
  /** The ids of the holds that lapsed by the command's time, which the write marks expired. */
  readonly lapsed: readonly string[];
}

/** What the read found: the entries, the change ids it took and, with a claim, the record stored for it. */
interface Read {
  readonly entries: (InventoryEntry | undefined)[];
  /** What `entries` were read from, in the same order. */
  readonly rows: (ReadEntry | undefined)[];
  readonly changeIds: bigint[];
  readonly claim: ClaimFound | undefined;
  /** The expiry of the record read for the claim, which the write may replace; null when none was. */
  readonly storedExpiresAtMs: bigint | null;
}

/**
 * Does one stock command: one plain read, the core's decision, one conditional statement that applies
 * it; again from the read when something it read moved, and at last under the rows' locks. With a claim,
 * the first read also takes the claim's advisory lock for the session, which the applying statement
 * lets go of: all of a write's statements run on one connection, and a failure destroys it, lock and all.
 */
export function writeStock(db: PostgresDatabase, command: StockCommand): Promise<StockWriteResult> {
  return db.session(async (session) => {
    const ids = `{${command.orders.map((order) => order.petId).join(',')}}`;
    const first = await readFor(session, command, ids, true);
    // Whether this session took the claim's lock: a later read does not ask again.
    const holdsClaim = first.claim !== undefined && !first.claim.heldElsewhere;
    let read = first;
    for (let attempt = 1; attempt <= OPTIMISTIC_ATTEMPTS; attempt += 1) {
      if (attempt > 1) read = await readFor(session, command, ids, false);
      const decision = decide(command, read);
      if (await apply(session, command, decision, read, holdsClaim)) return decision.result;
    }
    return underRowLocks(session, command, ids, holdsClaim);
  });
}

/**
 * The last resort: the rows are locked in one transaction before they are read, so nothing moves them
 * before the write, and no other write stores the claim while this session holds its lock. Two round
 * trips: BEGIN, the locks and the read; then the write and COMMIT. A write that does not apply here is
 * a bug, thrown (the session's connection is then destroyed, and the transaction with it).
 */
async function underRowLocks(
  session: Queryable,
  command: StockCommand,
  ids: string,
  holdsClaim: boolean,
): Promise<StockWriteResult> {
  // Sent together, answered together: should one fail, each is awaited, and none goes unheard.
  const [, , read] = await Promise.all([
    session.run('BEGIN'),
    session.run(LOCK_ROWS, [ids]),
    readFor(session, command, ids, false),
  ]);
  const decision = decide(command, read);
  const [done] = await Promise.all([apply(session, command, decision, read, holdsClaim), session.run('COMMIT')]);
  if (!done) throw new Error("a stock write did not apply under its rows' locks");
  return decision.result;
}

function decide(command: StockCommand, read: Read): StockDecision {
  return decideStockWrite({ command, entries: read.entries, claim: read.claim, changeIds: read.changeIds });
}

/** A hold of `petId` as the reads send it, as the core's Reservation. */
export const holdOf =
  (petId: PetId) =>
  ([id, quantity, createdAtMs, expiresAtMs]: HoldJson): Reservation => ({
    id,
    petId,
    quantity: quantity as Reservation['quantity'],
    state: 'held',
    createdAtMs,
    expiresAtMs,
  });

/**
 * The entry as the command's time sees it, as a conversational write saw it once it had marked the
 * pet's lapsed holds: the core's `lapseOf` says which lapsed, what the pet still holds, and how far the
 * marking moves the version.
 */
const readEntryOf = (command: StockCommand, index: number, row: ReadRow): ReadEntry | undefined => {
  const [quantity, status, version, , held, holds] = row;
  const order = command.orders[index];
  if (quantity === null || version === null || held === null || order === undefined) return undefined;
  const lapse = lapseOf((holds ?? []).map(holdOf(order.petId)), command.atMs);
  // The domain re-checks the row (the status is cast only for the type): a corrupt row throws.
  const item = inventoryItem(order.petId, quantity, status as PetStatus, held - lapse.quantity);
  return {
    entry: { item, version: Number(version) + lapse.expired.length },
    storedVersion: version,
    lapsed: lapse.expired.map((hold) => hold.id),
  };
};

const ascending = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

/** Sends the read of the command's entries (and claim, taking its lock when `takeLock`) and answers what it found. */
async function readFor(session: Queryable, command: StockCommand, ids: string, takeLock: boolean): Promise<Read> {
  const claim = command.idempotency;
  const [only, ...more] = command.orders;
  const one = only !== undefined && more.length === 0;
  const pets = one ? only.petId : ids;
  const rows =
    claim === undefined
      ? await session.rows<ReadRow>(one ? READ_ONE : READ, [pets, command.atMs])
      : await session.rows<ReadRow>(one ? READ_ONE_CLAIMED : READ_CLAIMED, [
          pets,
          claim.scope,
          claim.key,
          takeLock,
          command.atMs,
        ]);
  const read = rows.map((row, index) => readEntryOf(command, index, row));
  const entries = read.map((row) => row?.entry);
  const changeIds = rows.map((row) => row[3]).sort(ascending);
  const [first] = rows;
  if (claim === undefined || first === undefined) {
    return { entries, rows: read, changeIds, claim: undefined, storedExpiresAtMs: null };
  }
  const [, , , , , , fingerprint, expiresAtMs, outcome, locked] = first;
  const stored =
    fingerprint == null || expiresAtMs == null || outcome == null
      ? undefined
      : storedClaimOf(fingerprint, Number(expiresAtMs), outcome, firstPetOf(command));
  return {
    entries,
    rows: read,
    changeIds,
    claim: { stored, heldElsewhere: takeLock && locked !== true },
    storedExpiresAtMs: expiresAtMs ?? null,
  };
}

/** The write's parameters: the entries' columns, then the command's (see stock-write-statements.ts). */
function writeValues(command: StockCommand, { written }: StockDecision, read: Read): SqlValue[] {
  const changes = written.map((entry) => entry.change);
  // Only a command with no order refused writes, and then its entries are its orders, in their order.
  const rows = written.map((_, index) => {
    const row = read.rows[index];
    if (row === undefined) throw new Error('a written entry must be one the store read');
    return row;
  });
  const [first] = changes;
  const columns: SqlValue[][] = [
    changes.map((change) => change.id),
    changes.map((change) => change.after.petId),
    rows.map((row) => row.storedVersion),
    written.map((entry) => entry.version),
    changes.map((change) => change.after.quantity),
    changes.map((change) => change.after.status),
    changes.map((change) => change.before.quantity),
    changes.map((change) => change.before.status),
    changes.map((change) => change.kind),
    changes.map((change) => change.reason),
    written.map((entry) => entry.reserved),
  ];
  return [
    // One entry's columns travel as single values (see WRITE_ONE), a batch's as arrays.
    ...(written.length === 1 ? columns.map(([value]) => value ?? null) : columns),
    rows.flatMap((row) => row.lapsed),
    command.actor,
    command.atMs,
    first === undefined ? 0 : stripeOf(first.after.petId),
  ];
}

/**
 * Applies a decision in one statement, and answers false when something read moved before it (nothing
 * is written then). A decision that stores nothing sends nothing, but lets go of the claim's lock if
 * this session holds it (a replay, a reused key).
 */
async function apply(
  session: Queryable,
  command: StockCommand,
  decision: StockDecision,
  read: Read,
  holdsClaim: boolean,
): Promise<boolean> {
  const { written, claimed } = decision;
  const claim = command.idempotency;
  if (claimed === undefined && written.length === 0) {
    if (holdsClaim && claim !== undefined) await session.rows(UNLOCK_CLAIM, [claim.scope, claim.key]);
    return true;
  }
  const values = writeValues(command, decision, read);
  const one = written.length === 1;
  if (claimed === undefined) {
    const [[ok] = [false]] = await session.rows<[boolean]>(one ? WRITE_ONE : WRITE, values);
    return ok;
  }
  const { fingerprint, expiresAtMs } = claimed.claim;
  values.push(claimed.claim.scope, claimed.claim.key, fingerprint, encodeOutcome(claimed.outcome), expiresAtMs);
  values.push(read.storedExpiresAtMs);
  const [[done] = [false]] = await session.rows<[boolean]>(one ? WRITE_ONE_CLAIMED : WRITE_CLAIMED, values);
  return done;
}
