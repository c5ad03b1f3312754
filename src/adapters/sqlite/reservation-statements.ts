import type { Database, Statement } from 'better-sqlite3';
import { decideLapse, type LapseDecision } from '../../domain/lapse-decision.js';
import { type KeyedReservation, type Reservation, reservationStateOf } from '../../domain/reservation.js';
import { decideReservationWrite, type ReservationDecision } from '../../domain/reservation-decision.js';
import type { ReservationCommand } from '../../domain/reservation-outcome.js';
import type { ClaimFound } from '../../domain/stock-decision.js';
import type { InventoryEntry } from '../../domain/stock-write.js';
import { heldAt, lapsedBy } from '../sql/hold-expiry.js';
import { newReservationId } from '../web/reservation-id.js';
import { entryOfWriteRow, type WriteEntryRow } from './entry-row.js';

type ReservationRow = readonly [
  id: string,
  petId: bigint,
  quantity: bigint,
  state: string,
  createdAtMs: bigint,
  expiresAtMs: bigint,
  keyId?: string,
];

/** The row's reservation, through the domain's checks: a corrupt row throws. */
export const reservationOfRow = (row: ReservationRow): Reservation => ({
  id: row[0],
  petId: row[1] as Reservation['petId'],
  quantity: Number(row[2]) as Reservation['quantity'],
  state: reservationStateOf(row[3]),
  createdAtMs: Number(row[4]),
  expiresAtMs: Number(row[5]),
});

/** The row's reservation with its key, read with KEYED_COLUMNS. */
export const keyedReservationOfRow = (row: ReservationRow): KeyedReservation => {
  if (row[6] === undefined) throw new Error('a keyed reservation is read with its actor');
  return { ...reservationOfRow(row), keyId: row[6] };
};

export const RESERVATION_COLUMNS = 'id, pet_id, quantity, state, created_at_ms, expires_at_ms';
/** A reservation's columns and the key that made it. */
export const KEYED_COLUMNS = `${RESERVATION_COLUMNS}, actor`;
const COLUMNS = RESERVATION_COLUMNS;

/**
 * The reservation writes on one connection, inside the caller's transaction: a pet's entry as a write
 * reads it (its lapsed holds marked expired first), a reservation write decided by the core and
 * applied, and the marking of one pet's lapsed holds that the expiry of holds asks for.
 */
export class ReservationStatements {
  private readonly readEntry: Statement<[bigint], WriteEntryRow>;
  private readonly readReservation: Statement<[string], ReservationRow>;
  private readonly readLapsed: Statement<[bigint, number], ReservationRow>;
  private readonly countKeyHolds: Statement<[string, number], bigint>;
  private readonly setHeld: Statement<[number, number, bigint]>;
  private readonly insert: Statement<[string, bigint, number, number, number, string]>;
  private readonly setState: Statement<[string, string]>;
  private readonly storePet: Statement<[number, string, number, number, bigint]>;

  /** `onWrite` is told of every change of a pet's row, inside its transaction (the list's revision). */
  constructor(
    private readonly db: Database,
    private readonly onWrite: () => void,
  ) {
    // Inside a write, after the marking below, what is held is what is reserved.
    // Its integers as numbers: a quantity, a count of holds and a version (Number() of each, before).
    this.readEntry = db
      .prepare<[bigint], WriteEntryRow>('SELECT quantity, status, version, held FROM pets WHERE id = ?')
      .safeIntegers(false);
    this.readReservation = db
      .prepare<[string], ReservationRow>(`SELECT ${COLUMNS} FROM reservations WHERE id = ?`)
      .raw();
    // The partial index by (pet, expiry) finds the lapsed holds without reading those still held.
    this.readLapsed = db
      .prepare<[bigint, number], ReservationRow>(
        `SELECT ${COLUMNS} FROM reservations WHERE pet_id = ? AND state = 'held' AND ${lapsedBy('expires_at_ms', '?')}`,
      )
      .raw();
    // The partial index by (key, expiry) counts a key's holds still held, a key's limit at most.
    this.countKeyHolds = db
      .prepare<[string, number], bigint>(
        `SELECT count(*) FROM reservations WHERE actor = ? AND state = 'held' AND ${heldAt('expires_at_ms', '?')}`,
      )
      .pluck();
    this.setHeld = db.prepare<[number, number, bigint]>('UPDATE pets SET held = ?, version = ? WHERE id = ?');
    this.insert = db.prepare<[string, bigint, number, number, number, string]>(
      `INSERT INTO reservations (id, pet_id, quantity, state, created_at_ms, expires_at_ms, actor)
       VALUES (?, ?, ?, 'held', ?, ?, ?)`,
    );
    this.setState = db.prepare<[string, string]>('UPDATE reservations SET state = ? WHERE id = ?');
    this.storePet = db.prepare<[number, string, number, number, bigint]>(
      'UPDATE pets SET quantity = ?, status = ?, held = ?, version = ? WHERE id = ?',
    );
  }

  /**
   * The pet's entry as a write at `atMs` decides on: its lapsed holds are marked expired first (only a
   * pet that holds any is looked at), so that what it holds is what it has reserved.
   */
  entryAt(petId: bigint, atMs: number): InventoryEntry | undefined {
    let row = this.readEntry.get(petId);
    if (row !== undefined && row.held > 0 && this.lapseOf(petId, row, atMs) > 0) row = this.readEntry.get(petId);
    return row === undefined ? undefined : entryOfWriteRow(petId, row);
  }

  /** Reads the lapsed holds of the row's pet, asks the core what their lapse writes, and applies it. */
  private lapseOf(petId: bigint, row: WriteEntryRow, nowMs: number): number {
    const holds = this.readLapsed.all(petId, nowMs).map(reservationOfRow);
    return this.applyLapse(petId, decideLapse(holds, { reserved: row.held, version: row.version }, nowMs));
  }

  /** The one place this store writes the lapse the core decided: the holds' state, the row's held and version. */
  private applyLapse(petId: bigint, lapse: LapseDecision<Reservation>): number {
    if (lapse.expired.length === 0) return 0;
    for (const hold of lapse.expired) this.setState.run(hold.state, hold.id);
    this.setHeld.run(lapse.reserved, lapse.version, petId);
    this.onWrite();
    return lapse.expired.length;
  }

  /**
   * Reads what the command names (the reservation first, for its pet), asks the core, and applies the
   * reservation and the pet's row it decided. The caller records the change and stores the claim.
   */
  decide(command: ReservationCommand, claim: ClaimFound | undefined, changeId: bigint): ReservationDecision {
    const order = command.reservation;
    const named = order.kind === 'reserve' ? undefined : this.readReservation.get(order.reservationId);
    const petId = order.kind === 'reserve' ? order.petId : named?.[1];
    const entry = petId === undefined ? undefined : this.entryAt(petId, command.atMs);
    // Read again: marking the pet's lapsed holds may have expired it.
    const stored = named === undefined ? undefined : this.readReservation.get(named[0]);
    const decision = decideReservationWrite({
      command,
      entry,
      // The write holds the database's one write lock: no other reserve of the key counts meanwhile.
      keyHolds: order.kind === 'reserve' ? Number(this.countKeyHolds.get(command.actor, command.atMs)) : 0,
      reservation: stored === undefined ? undefined : reservationOfRow(stored),
      claim,
      newId: newReservationId(),
      changeId,
    });
    const { reservation, entry: next } = decision;
    if (reservation === undefined || next === undefined) return decision;
    if (order.kind === 'reserve') {
      const { id, petId: pet, quantity, createdAtMs, expiresAtMs } = reservation;
      this.insert.run(id, pet, quantity, createdAtMs, expiresAtMs, command.actor);
    } else {
      this.setState.run(reservation.state, reservation.id);
    }
    const { level } = next;
    this.storePet.run(level.quantity, level.status, next.reserved, next.version, level.petId);
    this.onWrite();
    return decision;
  }

  /** Marks the pet's lapsed holds expired in a transaction of its own; returns how many. */
  markLapse(petId: bigint, nowMs: number): number {
    return this.db
      .transaction(() => {
        const row = this.readEntry.get(petId);
        return row === undefined || row.held === 0 ? 0 : this.lapseOf(petId, row, nowMs);
      })
      .immediate();
  }

  /** One reservation as stored. */
  get(id: string): Reservation | undefined {
    const row = this.readReservation.get(id);
    return row === undefined ? undefined : reservationOfRow(row);
  }
}
