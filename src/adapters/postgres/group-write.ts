import type { PetId } from '../../domain/pet-id.js';
import type { Reservation } from '../../domain/reservation.js';
import type { ReservationCommand, ReservationWriteResult } from '../../domain/reservation-outcome.js';
import { firstPetOf, type IdempotencyClaim, type StockCommand } from '../../domain/stock-command.js';
import type { ClaimFound } from '../../domain/stock-decision.js';
import type { StockWriteResult } from '../../domain/stock-outcome.js';
import { storedClaimOf } from '../sql/stock-outcome-json.js';
import { effectCounts, groupWrite, type PetState } from './group-effects.js';
import { GroupState, type KeyHolds } from './group-state.js';
import {
  GROUP_CHANGE_IDS_AND_XACT,
  GROUP_KEY_HOLDS,
  GROUP_LOCK_CLAIMS,
  GROUP_LOCK_KEYS,
  GROUP_LOCK_PETS,
  GROUP_LOCK_ROWS,
  GROUP_READ_CLAIMS,
  GROUP_READ_PETS,
  GROUP_READ_RESERVATIONS,
  GROUP_READ_ROWS,
} from './group-statements.js';
import { PostgresUnavailableError, type Transaction } from './postgres-database.js';
import { keyedReservationOfPgRow, type PgReservationRow } from './postgres-reservation-statements.js';

/** A write a group takes: a stock write (set, adjust, batch) or a reservation write (reserve, commit, release). */
export type GroupWrite =
  | { readonly kind: 'stock'; readonly command: StockCommand }
  | { readonly kind: 'reservation'; readonly command: ReservationCommand };

/** What one write of a group answers: its result, or the error its decision threw (a bug). */
export type GroupOutcome =
  | { readonly ok: true; readonly kind: 'stock'; readonly result: StockWriteResult }
  | { readonly ok: true; readonly kind: 'reservation'; readonly result: ReservationWriteResult }
  | { readonly ok: false; readonly error: unknown };

/** A reservation stored as held whose time is up, as the reads send it: id, quantity, created and expiry times. */
type HoldJson = [id: string, quantity: number, createdAtMs: number, expiresAtMs: number];
type RowRead = [id: bigint, quantity: number, status: string, version: bigint, held: number, holds: HoldJson[] | null];
type KeyHoldsRead = [actor: string, running: number, lapsing: [id: string, expiresAtMs: number][] | null];
type ClaimRead = [fingerprint: string | null, expiresAtMs: bigint | null, outcome: string | null];

const holdOf =
  (petId: bigint) =>
  ([id, quantity, createdAtMs, expiresAtMs]: HoldJson): Reservation => ({
    id,
    petId: petId as PetId,
    quantity: quantity as Reservation['quantity'],
    state: 'held',
    createdAtMs,
    expiresAtMs,
  });

/** What a group names, for its first round trip's statements. */
interface Names {
  /** The orders' pets, as an array literal. */
  readonly pets: string;
  /** The reservations its commits and releases name. */
  readonly settled: readonly string[];
  /** Its reserves' keys, sorted: the order they are locked in. */
  readonly keys: readonly string[];
  readonly earliestReserve: number;
  readonly latest: number;
  /** How many change ids it takes. */
  readonly changes: number;
  readonly claims: readonly IdempotencyClaim[];
}

function namesOf(writes: readonly GroupWrite[]): Names {
  const pets = new Set<string>();
  const settled: string[] = [];
  const keys = new Set<string>();
  let changes = 0;
  let earliestReserve = Number.POSITIVE_INFINITY;
  let latest = Number.NEGATIVE_INFINITY;
  for (const write of writes) {
    latest = Math.max(latest, write.command.atMs);
    if (write.kind === 'stock') {
      for (const order of write.command.orders) pets.add(String(order.petId));
      changes += write.command.orders.length;
      continue;
    }
    // One change id a reservation write: a commit records its change with it; the others leave a gap.
    changes += 1;
    const order = write.command.reservation;
    if (order.kind !== 'reserve') {
      settled.push(order.reservationId);
      continue;
    }
    pets.add(String(order.petId));
    keys.add(write.command.actor);
    earliestReserve = Math.min(earliestReserve, write.command.atMs);
  }
  const claims = writes.flatMap((write) =>
    write.command.idempotency === undefined ? [] : [write.command.idempotency],
  );
  return {
    pets: `{${[...pets].join(',')}}`,
    settled,
    keys: [...keys].sort(),
    earliestReserve,
    latest,
    changes,
    claims,
  };
}

/** Sends the first round trip: the locks (keys, pets, claims) and the reads under them. */
async function readGroup(tx: Transaction, names: Names) {
  const { claims, keys } = names;
  const scopes = claims.map((claim) => claim.scope);
  const claimKeys = claims.map((claim) => claim.key);
  const none = Promise.resolve([]);
  // A group that commits or releases nothing (most of them) names its pets alone: no look-up of pets
  // through reservations in its lock and its read.
  const settles = names.settled.length > 0;
  // One round trip: each statement is sent at once, and each runs once the one before it has ended.
  const [, locked, had, stored, rows, reservations, holds, [[changeIds, xactId, serverStart] = [[], '', '']]] =
    await Promise.all([
      keys.length === 0 ? none : tx.run(GROUP_LOCK_KEYS, [keys]),
      settles
        ? tx.rows<[bigint]>(GROUP_LOCK_ROWS, [names.pets, names.settled])
        : tx.rows<[bigint]>(GROUP_LOCK_PETS, [names.pets]),
      claims.length === 0 ? none : tx.rows<[boolean]>(GROUP_LOCK_CLAIMS, [scopes, claimKeys]),
      claims.length === 0 ? none : tx.rows<ClaimRead>(GROUP_READ_CLAIMS, [scopes, claimKeys]),
      settles
        ? tx.rows<RowRead>(GROUP_READ_ROWS, [names.pets, names.settled, names.latest])
        : tx.rows<RowRead>(GROUP_READ_PETS, [names.pets, names.latest]),
      settles ? tx.rows<PgReservationRow>(GROUP_READ_RESERVATIONS, [names.settled]) : none,
      keys.length === 0 ? none : tx.rows<KeyHoldsRead>(GROUP_KEY_HOLDS, [keys, names.earliestReserve, names.latest]),
      tx.rows<[string[], string, string]>(GROUP_CHANGE_IDS_AND_XACT, [names.changes]),
    ]);
  const lockedIds = new Set(locked.map(([id]) => id));
  const pets = new Map<bigint, PetState>();
  for (const [id, quantity, status, version, held, lapsed] of rows) {
    // A reservation stored between the lock and the read names a pet this group did not lock.
    if (!lockedIds.has(id)) throw new Error(`pet ${id} was read but not locked: its reservation is new`);
    const holdsOfPet = (lapsed ?? []).map(holdOf(id));
    pets.set(id, {
      quantity,
      status,
      lockedVersion: version,
      version: Number(version),
      held,
      holds: holdsOfPet,
      written: false,
    });
  }
  const keyHolds = new Map<string, KeyHolds>(keys.map((key) => [key, { running: 0, lapsing: new Map() }]));
  for (const [actor, running, lapsing] of holds) {
    keyHolds.set(actor, { running, lapsing: new Map((lapsing ?? []).map(([id, expiresAtMs]) => [id, expiresAtMs])) });
  }
  const named = new Map(reservations.map((row) => [row[0], keyedReservationOfPgRow(row)]));
  const state = new GroupState(
    pets,
    named,
    keyHolds,
    names.latest,
    changeIds.map((id) => BigInt(id)),
  );
  return { state, had, stored, xact: { id: xactId, serverStart } };
}

/** What the store found of each write's claim, in the group's order. */
function claimsFound(
  writes: readonly GroupWrite[],
  had: readonly [boolean][],
  stored: readonly ClaimRead[],
): (ClaimFound | undefined)[] {
  let index = 0;
  return writes.map((write) => {
    if (write.command.idempotency === undefined) return undefined;
    const [held] = had[index] ?? [false];
    const [fingerprint, expiresAtMs, outcome] = stored[index] ?? [null, null, null];
    index += 1;
    const petId = write.kind === 'stock' ? firstPetOf(write.command) : undefined;
    return {
      heldElsewhere: !held,
      stored:
        fingerprint === null || expiresAtMs === null || outcome === null
          ? undefined
          : storedClaimOf(fingerprint, Number(expiresAtMs), outcome, petId),
    };
  });
}

/** Sends the group's one write with COMMIT, and checks it wrote what was decided. */
async function applyGroup(tx: Transaction, state: GroupState): Promise<void> {
  const pets = [...state.pets.entries()] as [PetId, PetState][];
  const rows = state.effects.rows(pets);
  const expected = effectCounts(rows);
  if (expected.every((count) => count === 0)) {
    await tx.commit();
    return;
  }
  const { statement, values } = groupWrite(rows);
  const [[answered = []]] = await Promise.all([tx.rows<number[]>(statement, values), tx.commit()]);
  if (expected.some((count, index) => answered[index] !== count)) {
    throw new Error('a group of writes did not apply under its locks');
  }
}

/** A group's transaction: its id (`pg_current_xact_id()`), and when the server that gave it started. */
export interface GroupXact {
  readonly id: string;
  readonly serverStart: string;
}

/**
 * Thrown when a group's connection was lost while its COMMIT was sent or answered: the group may be
 * saved or not. It carries what GroupedWriter needs to find out (the transaction's id) and to answer each
 * write should the group be saved (the outcomes decided). Still a PostgresUnavailableError: the server
 * could not be heard, and a group that did not commit is answered as such.
 */
export class CommitAnswerLost extends PostgresUnavailableError {
  constructor(
    readonly xact: GroupXact,
    readonly outcomes: readonly GroupOutcome[],
    options: { readonly cause: unknown },
  ) {
    super(options);
    this.name = 'CommitAnswerLost';
  }
}

/**
 * Does a group of writes in the transaction `tx`, in two round trips: the locks and the reads (keys,
 * rows, reservations, claims, change ids), then the one statement that applies every decision, with
 * COMMIT. Each write is decided by the core alone, in the group's order, on what the writes before it
 * in the group left. Throws when a statement fails: then nothing of the group is written; and
 * CommitAnswerLost when the connection was lost in the last round trip, when nobody knows yet.
 */
export async function writeGroup(tx: Transaction, writes: readonly GroupWrite[]): Promise<GroupOutcome[]> {
  const { state, had, stored, xact } = await readGroup(tx, namesOf(writes));
  const claims = claimsFound(writes, had, stored);
  const outcomes = writes.map((write, index): GroupOutcome => {
    try {
      return write.kind === 'stock'
        ? { ok: true, kind: 'stock', result: state.decideStock(write.command, claims[index]) }
        : { ok: true, kind: 'reservation', result: state.decideReservation(write.command, claims[index]) };
    } catch (error) {
      return { ok: false, error };
    }
  });
  try {
    await applyGroup(tx, state);
  } catch (error) {
    if (error instanceof PostgresUnavailableError) throw new CommitAnswerLost(xact, outcomes, { cause: error.cause });
    throw error;
  }
  return outcomes;
}

/**
 * Marks expired the holds of `petIds` that lapsed by `nowMs`, as a write would: the pets locked and
 * read as a group's, the core's lapse, the group's one write. Answers how many it marked.
 */
export async function expireGroup(tx: Transaction, petIds: readonly bigint[], nowMs: number): Promise<number> {
  const names = { pets: `{${petIds.join(',')}}`, settled: [], keys: [], claims: [], changes: 0 };
  const { state } = await readGroup(tx, { ...names, earliestReserve: nowMs, latest: nowMs });
  const marked = state.expire(nowMs);
  await applyGroup(tx, state);
  return marked;
}
