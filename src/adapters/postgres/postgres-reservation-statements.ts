import { inventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { PetStatus } from '../../domain/pet-status.js';
import { type KeyedReservation, lapseOf, type Reservation, reservationStateOf } from '../../domain/reservation.js';
import { decideReservationWrite } from '../../domain/reservation-decision.js';
import type { ReservationCommand, ReservationWriteResult } from '../../domain/reservation-outcome.js';
import type { ClaimFound } from '../../domain/stock-decision.js';
import type { InventoryEntry } from '../../domain/stock-write.js';
import { encodeOutcome } from '../sql/stock-outcome-json.js';
import { newReservationId } from '../web/reservation-id.js';
import { stripeOf } from './inventory-stamp.js';
import { type PostgresDatabase, prepared, type Queryable, type Transaction } from './postgres-database.js';

/*
 * The reservations' statements. Every change of a reservation's state happens under its pet's row
 * lock, taken first: a write of the pet, a reservation write and the purge alike, so they never wait on
 * one another in a cycle, and what a write reads of a pet's holds stays true until it commits.
 */

/** Of the holds stored as held for the row's pet, those whose time is up at `now`. */
const lapsed = (what: string, now: string): string =>
  `(SELECT ${what} FROM reservations r WHERE r.pet_id = pets.id AND r.state = 'held' AND r.expires_at_ms <= ${now})`;

/**
 * What the row's pet has reserved at the time in parameter `now` (`$2`): a pet that holds nothing (held
 * = 0, nearly every pet) is answered from its row alone; the others subtract from `held` (every hold
 * stored as held) those whose time is up, which the partial index by (pet, expiry) finds without
 * reading the holds still held.
 */
export const reservedAt = (now: string): string =>
  `CASE WHEN held = 0 THEN 0 ELSE held - ${lapsed('coalesce(sum(r.quantity), 0)::integer', now)} END`;

/** The entry's version at `now`: each hold that lapsed unmarked moved it (see InventoryRepository). */
export const versionAt = (now: string): string =>
  `version + CASE WHEN held = 0 THEN 0 ELSE ${lapsed('count(*)', now)} END`;

/** A row of `pets` with its version and what it has reserved. */
export type EntryRow = [id: bigint, quantity: number, status: string, version: bigint, reserved: number];

/** The domain re-checks the row (the status is cast only for the type), so a corrupt row throws. */
export const entryOfRow = (row: EntryRow): InventoryEntry => ({
  item: inventoryItem(row[0], row[1], row[2] as PetStatus, row[4]),
  version: Number(row[3]),
});

type ReservationRow = [
  id: string,
  petId: bigint,
  quantity: number,
  state: string,
  createdAt: bigint,
  expiresAt: bigint,
  keyId?: string,
];

const COLUMNS = 'id, pet_id, quantity, state, created_at_ms, expires_at_ms';
/** A reservation's columns and the key that made it. */
export const KEYED_COLUMNS = `${COLUMNS}, actor`;

export const reservationOfRow = (row: ReservationRow): Reservation => ({
  id: row[0],
  petId: row[1] as PetId,
  quantity: row[2] as Reservation['quantity'],
  state: reservationStateOf(row[3]),
  createdAtMs: Number(row[4]),
  expiresAtMs: Number(row[5]),
});

/** The row's reservation with its key, read with KEYED_COLUMNS. */
export const keyedReservationOfRow = (row: ReservationRow): KeyedReservation => {
  if (row[6] === undefined) throw new Error('a keyed reservation is read with its actor');
  return { ...reservationOfRow(row), keyId: row[6] };
};

const RESERVATION = prepared('reservation', `SELECT ${COLUMNS} FROM reservations WHERE id = $1`);
const PET_OF_RESERVATION = prepared('reservation_pet', 'SELECT pet_id FROM reservations WHERE id = $1');
// Inside a write, after the marking below, what is held is what is reserved.
const LOCKED_PET = prepared(
  'reservation_locked_pet',
  'SELECT id, quantity, status, version, held FROM pets WHERE id = $1 FOR NO KEY UPDATE',
);
const LOCKED_PETS = prepared(
  'reservation_locked_pets',
  'SELECT id FROM pets WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE',
);
// The lapsed holds alone, found by the partial index by (pet, expiry): those still held are not read.
const LAPSED_HOLDS = prepared(
  'reservation_lapsed_holds',
  `SELECT ${COLUMNS} FROM reservations WHERE pet_id = ANY($1::bigint[]) AND state = 'held' AND expires_at_ms <= $2`,
);
// A reserve's key, locked for the transaction before its pet's row (so always in that order: no other
// transaction takes this lock) and only then counted: a second reserve of the key waits here and counts
// the first one's hold once it committed. A key's limit holds across instances.
const KEY_LOCK = prepared('reservation_key_lock', "SELECT pg_advisory_xact_lock(hashtextextended('holds ' || $1, 0))");
const KEY_HOLDS = prepared(
  'reservation_key_holds',
  "SELECT count(*)::integer FROM reservations WHERE actor = $1 AND state = 'held' AND expires_at_ms > $2",
);
const MARK_EXPIRED = prepared(
  'reservation_mark_expired',
  "UPDATE reservations SET state = 'expired' WHERE id = ANY($1::text[]) AND state = 'held'",
);
// The pet's held count, its version and the list's counter (see inventory-stamp.ts), in one statement.
const DROP_HELD = prepared(
  'reservation_drop_held',
  `WITH moved AS (UPDATE pets SET held = held - $2, version = version + $3 WHERE id = $1)
   UPDATE inventory_stamps SET writes = writes + 1 WHERE stripe = $4`,
);
const INSERT = prepared(
  'reservation_insert',
  `INSERT INTO reservations (id, pet_id, quantity, state, created_at_ms, expires_at_ms, actor)
   VALUES ($1, $2, $3, 'held', $4, $5, $6)`,
);
const SET_STATE = prepared('reservation_set_state', 'UPDATE reservations SET state = $2 WHERE id = $1');
const STORE_PET = prepared(
  'reservation_store_pet',
  `WITH moved AS (UPDATE pets SET quantity = $2, status = $3, held = $4, version = $5 WHERE id = $1)
   UPDATE inventory_stamps SET writes = writes + 1 WHERE stripe = $6`,
);
const RECORD_COMMIT = prepared(
  'reservation_record_commit',
  `INSERT INTO stock_changes
     (id, pet_id, before_quantity, before_status, after_quantity, after_status, actor, at_ms, kind, reason)
   VALUES (nextval(pg_get_serial_sequence('stock_changes', 'id')), $1, $2, $3, $4, $5, $6, $7, 'reservation_commit', NULL)
   RETURNING id`,
);
const LAPSED_PETS = prepared(
  'reservation_lapsed_pets',
  "SELECT DISTINCT pet_id FROM reservations WHERE state = 'held' AND expires_at_ms <= $1 LIMIT $2",
);
// The list's stamp (see inventory-stamp.ts), and how many holds lapsed unmarked: an expiry changes the
// list without a write. Given the writes, the holds lapsed by a time only grow with it, so their count
// names them.
export const STAMP_AT = prepared(
  'inventory_stamp_at',
  `SELECT (SELECT epoch::text FROM inventory_epoch) || ':' || (SELECT sum(writes)::text FROM inventory_stamps)
     || '.' || (SELECT count(*) FROM reservations WHERE state = 'held' AND expires_at_ms <= $1)`,
);

/** The pets of entries read locked (whose `reserved` is then their held count) that hold anything. */
const holdingOf = (entries: readonly (InventoryEntry | undefined)[]): bigint[] =>
  entries.flatMap((entry) => (entry !== undefined && entry.item.reserved > 0 ? [entry.item.petId] : []));

/**
 * Marks the lapsed holds of `holding` (pets whose rows this transaction has locked) expired at `atMs`,
 * each pet's held count and version moved as `Lapse` says. Resolves to how many it marked.
 */
async function markLapsed(tx: Queryable, holding: readonly bigint[], atMs: number): Promise<number> {
  if (holding.length === 0) return 0;
  const rows = await tx.rows<ReservationRow>(LAPSED_HOLDS, [`{${holding.join(',')}}`, atMs]);
  const sent: Promise<unknown>[] = [];
  let marked = 0;
  for (const petId of holding) {
    const lapse = lapseOf(rows.filter((row) => row[1] === petId).map(reservationOfRow), atMs);
    if (lapse.expired.length === 0) continue;
    marked += lapse.expired.length;
    sent.push(tx.run(MARK_EXPIRED, [`{${lapse.expired.map((hold) => hold.id).join(',')}}`]));
    sent.push(tx.run(DROP_HELD, [petId, lapse.quantity, lapse.expired.length, stripeOf(petId as PetId)]));
  }
  await Promise.all(sent);
  return marked;
}

/** The pet's entry, locked, as a write at `atMs` decides on: its lapsed holds marked expired first. */
async function lockedEntry(tx: Queryable, petId: bigint, atMs: number): Promise<InventoryEntry | undefined> {
  const read = async () => {
    const [row] = await tx.rows<EntryRow>(LOCKED_PET, [petId]);
    return row && entryOfRow(row);
  };
  const entry = await read();
  return (await markLapsed(tx, holdingOf([entry]), atMs)) > 0 ? read() : entry;
}

/** How many reservations a reserve's key holds at its time, counted under the key's lock. */
async function countKeyHolds(tx: Queryable, command: ReservationCommand): Promise<number> {
  const [, [row]] = await Promise.all([
    tx.run(KEY_LOCK, [command.actor]),
    tx.rows<[number]>(KEY_HOLDS, [command.actor, command.atMs]),
  ]);
  return row?.[0] ?? 0;
}

/**
 * One reservation write in `tx`. A commit's or release's reservation names its pet (which never
 * changes), whose row is locked first; the reservation is read again under that lock. Then the core
 * decides, and the reservation, the pet's row, a commit's change and the claim's outcome are written
 * with the COMMIT.
 */
export async function writeReservationIn(
  tx: Transaction,
  command: ReservationCommand,
  readClaim: () => Promise<ClaimFound | undefined>,
  recordOutcome: (claim: NonNullable<ReservationCommand['idempotency']>, text: string) => Promise<unknown>,
): Promise<ReservationWriteResult> {
  const order = command.reservation;
  const found = readClaim();
  const keyHolds = order.kind === 'reserve' ? countKeyHolds(tx, command) : 0;
  const petId =
    order.kind === 'reserve'
      ? order.petId
      : (await tx.rows<[bigint]>(PET_OF_RESERVATION, [order.reservationId]))[0]?.[0];
  const entry = petId === undefined ? undefined : await lockedEntry(tx, petId, command.atMs);
  const rows = order.kind === 'reserve' ? [] : await tx.rows<ReservationRow>(RESERVATION, [order.reservationId]);
  const row = rows[0];
  const decision = decideReservationWrite({
    command,
    entry,
    reservation: row && reservationOfRow(row),
    keyHolds: await keyHolds,
    claim: await found,
    newId: newReservationId(),
    // The commit's change takes its id from the sequence in its own INSERT.
    changeId: 0n,
  });
  const sent: Promise<unknown>[] = [];
  const { reservation, entry: next, change, claimed } = decision;
  if (reservation !== undefined && next !== undefined) {
    const { id, quantity, createdAtMs, expiresAtMs } = reservation;
    sent.push(
      order.kind === 'reserve'
        ? tx.run(INSERT, [id, reservation.petId, quantity, createdAtMs, expiresAtMs, command.actor])
        : tx.run(SET_STATE, [id, reservation.state]),
    );
    const { level } = next;
    sent.push(
      tx.run(STORE_PET, [
        level.petId,
        level.quantity,
        level.status,
        next.reserved,
        next.version,
        stripeOf(level.petId),
      ]),
    );
    if (change !== undefined) {
      const { before, after } = change;
      const values = [
        after.petId,
        before.quantity,
        before.status,
        after.quantity,
        after.status,
        change.actor,
        change.atMs,
      ];
      sent.push(tx.run(RECORD_COMMIT, values));
    }
  }
  if (claimed !== undefined) sent.push(recordOutcome(claimed.claim, encodeOutcome(claimed.outcome)));
  await Promise.all([...sent, tx.commit()]);
  return decision.result;
}

/** One reservation as stored. */
export async function readReservation(db: Queryable, id: string): Promise<Reservation | undefined> {
  const [row] = await db.rows<ReservationRow>(RESERVATION, [id]);
  return row && reservationOfRow(row);
}

/** At most `max` pets with holds lapsed by `nowMs`, unmarked. */
export async function lapsedPetsIn(db: PostgresDatabase, nowMs: number, max: number): Promise<PetId[]> {
  return (await db.rows<[bigint]>(LAPSED_PETS, [nowMs, max])).map(([id]) => id as PetId);
}

/** Marks expired the lapsed holds of one pet, in a transaction that locks its row. */
export function markLapseIn(db: PostgresDatabase, petId: PetId, nowMs: number): Promise<number> {
  return db.transaction(async (tx) => {
    const locked = await tx.rows<[bigint]>(LOCKED_PETS, [`{${petId}}`]);
    return markLapsed(
      tx,
      locked.map(([id]) => id),
      nowMs,
    );
  });
}
