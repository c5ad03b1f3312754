import { inventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { PetStatus } from '../../domain/pet-status.js';
import { type KeyedReservation, type Reservation, reservationStateOf } from '../../domain/reservation.js';
import type { InventoryEntry } from '../../domain/stock-write.js';
import { lapsedBy } from '../sql/hold-expiry.js';
import { prepared, type Queryable } from './postgres-database.js';

/*
 * The reservations' reads. Every change of a reservation's state happens under its pet's row lock, in
 * a group of writes (see group-write.ts): a write of the pet, a reservation write and the purge alike.
 */

/** Of the holds stored as held for the row's pet, those whose time is up at `now`. */
const lapsedHolds = (what: string, now: string): string =>
  `(SELECT ${what} FROM reservations r WHERE r.pet_id = pets.id AND r.state = 'held' AND ${lapsedBy('r.expires_at_ms', now)})`;

/**
 * What the row's pet has reserved at the time in parameter `now` (`$2`): a pet that holds nothing (held
 * = 0, nearly every pet) is answered from its row alone; the others subtract from `held` (every hold
 * stored as held) those whose time is up, which the partial index by (pet, expiry) finds without
 * reading the holds still held.
 */
export const reservedAt = (now: string): string =>
  `CASE WHEN held = 0 THEN 0 ELSE held - ${lapsedHolds('coalesce(sum(r.quantity), 0)::integer', now)} END`;

/** The entry's version at `now`: each hold that lapsed unmarked moved it (see InventoryRepository). */
export const versionAt = (now: string): string =>
  `version + CASE WHEN held = 0 THEN 0 ELSE ${lapsedHolds('count(*)', now)} END`;

/** A row of `pets` with its version and what it has reserved. */
export type PgEntryRow = [id: bigint, quantity: number, status: string, version: bigint, reserved: number];

/** The domain re-checks the row (the status is cast only for the type), so a corrupt row throws. */
export const entryOfPgRow = (row: PgEntryRow): InventoryEntry => ({
  item: inventoryItem(row[0], row[1], row[2] as PetStatus, row[4]),
  version: Number(row[3]),
});

export type PgReservationRow = [
  id: string,
  petId: bigint,
  quantity: number,
  state: string,
  createdAt: bigint,
  expiresAt: bigint,
  keyId?: string,
];

const UNKEYED_RESERVATION_COLUMNS = 'id, pet_id, quantity, state, created_at_ms, expires_at_ms';
/** A reservation's columns and the key that made it. */
export const KEYED_RESERVATION_COLUMNS = `${UNKEYED_RESERVATION_COLUMNS}, actor`;

export const reservationOfPgRow = (row: PgReservationRow): Reservation => ({
  id: row[0],
  petId: row[1] as PetId,
  quantity: row[2] as Reservation['quantity'],
  state: reservationStateOf(row[3]),
  createdAtMs: Number(row[4]),
  expiresAtMs: Number(row[5]),
});

/** The row's reservation with its key, read with KEYED_RESERVATION_COLUMNS. */
export const keyedReservationOfPgRow = (row: PgReservationRow): KeyedReservation => {
  if (row[6] === undefined) throw new Error('a keyed reservation is read with its actor');
  return { ...reservationOfPgRow(row), keyId: row[6] };
};

const RESERVATION = prepared('reservation', `SELECT ${UNKEYED_RESERVATION_COLUMNS} FROM reservations WHERE id = $1`);
/** At most $2 pets with holds that lapsed by $1, for the purge. */
export const LAPSED_PETS = prepared(
  'reservation_lapsed_pets',
  `SELECT DISTINCT pet_id FROM reservations WHERE state = 'held' AND ${lapsedBy('expires_at_ms', '$1')} LIMIT $2`,
);
// The list's stamp (see inventory-stamp.ts), and how many holds lapsed unmarked: an expiry changes the
// list without a write. Given the writes, the holds lapsed by a time only grow with it, so their count
// names them.
export const STAMP_AT = prepared(
  'inventory_stamp_at',
  `SELECT (SELECT epoch::text FROM inventory_epoch) || ':' || (SELECT sum(writes)::text FROM inventory_stamps)
     || '.' || (SELECT count(*) FROM reservations WHERE state = 'held' AND ${lapsedBy('expires_at_ms', '$1')})`,
);

/** One reservation as stored. */
export async function readReservation(db: Queryable, id: string): Promise<Reservation | undefined> {
  const [row] = await db.rows<PgReservationRow>(RESERVATION, [id]);
  return row && reservationOfPgRow(row);
}
