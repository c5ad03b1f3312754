import type { HoldQuery } from '../../application/ports/inventory-repository.js';
import type { KeyedReservation } from '../../domain/reservation.js';
import { heldAt } from '../sql/hold-expiry.js';
import { prepared, type Queryable } from './postgres-database.js';
import {
  KEYED_RESERVATION_COLUMNS,
  keyedReservationOfPgRow,
  type reservationOfPgRow,
} from './postgres-reservation-statements.js';

type PgReservationRow = Parameters<typeof reservationOfPgRow>[0];

/**
 * The holds still held at $1 after ($2, $3) in the order of expiry then id, which each partial index of
 * held rows keeps: by pet ($5), by key ($6), or by expiry alone. A hold whose time is up has
 * expires_at_ms <= $1, so a first page starts at ($1, '').
 */
const heldPage = (name: string, where: string) =>
  prepared(
    name,
    `SELECT ${KEYED_RESERVATION_COLUMNS} FROM reservations
     WHERE state = 'held' AND ${where} AND ${heldAt('expires_at_ms', '$1')} AND (expires_at_ms, id) > ($2, $3::text)
     ORDER BY expires_at_ms, id LIMIT $4`,
  );

const BY_PET = heldPage('holds_by_pet', 'pet_id = $5::bigint AND ($6::text IS NULL OR actor = $6)');
const BY_KEY = heldPage('holds_by_key', 'actor = $6::text AND $5::bigint IS NULL');
const ALL = heldPage('holds_all', '$5::bigint IS NULL AND $6::text IS NULL');
// min() over the partial index by key: one look a key, whatever its holds number.
const NEXT_HOLDER = prepared(
  'holds_next_holder',
  "SELECT min(actor) FROM reservations WHERE state = 'held' AND actor > $1",
);

/** The holds `query` names, still held at its time (see InventoryRepository.listHolds). */
export async function listHoldsIn(db: Queryable, query: HoldQuery): Promise<KeyedReservation[]> {
  const statement = query.petId !== undefined ? BY_PET : query.keyId !== undefined ? BY_KEY : ALL;
  const rows = await db.rows<PgReservationRow>(statement, [
    query.nowMs,
    query.after?.expiresAtMs ?? query.nowMs,
    query.after?.id ?? '',
    query.limit,
    query.petId ?? null,
    query.keyId ?? null,
  ]);
  return rows.map(keyedReservationOfPgRow);
}

/** The first key after `after` that has a reservation stored as held (see InventoryRepository.nextHolder). */
export async function nextHolderIn(db: Queryable, after: string | undefined): Promise<string | undefined> {
  const [row] = await db.rows<[string | null]>(NEXT_HOLDER, [after ?? '']);
  return row?.[0] ?? undefined;
}
