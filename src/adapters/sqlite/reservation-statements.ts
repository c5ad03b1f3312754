import type { Database, Statement } from 'better-sqlite3';
import { lapseOf, type Reservation, reservationStateOf } from '../../domain/reservation.js';
import { decideReservationWrite, type ReservationDecision } from '../../domain/reservation-decision.js';
import type { ReservationCommand } from '../../domain/reservation-outcome.js';
import type { ClaimFound } from '../../domain/stock-decision.js';
import type { InventoryEntry } from '../../domain/stock-write.js';
import { newReservationId } from '../web/reservation-id.js';
import { type EntryRow, entryOfRow } from './entry-row.js';

type ReservationRow = readonly [
  id: string,
  petId: bigint,
  quantity: bigint,
  state: string,
  createdAtMs: bigint,
  expiresAtMs: bigint,
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

const COLUMNS = 'id, pet_id, quantity, state, created_at_ms, expires_at_ms';

/**
 * The reservation writes on one connection, inside the caller's transaction: a pet's entry as a write
 * reads it (its lapsed holds marked expired first), a reservation write decided by the core and
 * applied, and the purge of lapsed holds.
 */
export class ReservationStatements {
  private readonly readEntry: Statement<[bigint], EntryRow>;
  private readonly readReservation: Statement<[string], ReservationRow>;
  private readonly readHolds: Statement<[bigint], ReservationRow>;
  private readonly markExpired: Statement<[string]>;
  private readonly dropHeld: Statement<[number, number, bigint]>;
  private readonly insert: Statement<[string, bigint, number, number, number, string]>;
  private readonly setState: Statement<[string, string]>;
  private readonly storePet: Statement<[number, string, number, number, bigint]>;
  private readonly lapsedPets: Statement<[number, number], bigint>;

  /** `onWrite` is told of every change of a pet's row, inside its transaction (the list's revision). */
  constructor(
    private readonly db: Database,
    private readonly onWrite: () => void,
  ) {
    // Inside a write, after the marking below, what is held is what is reserved.
    this.readEntry = db
      .prepare<[bigint], EntryRow>('SELECT id, quantity, status, version, held FROM pets WHERE id = ?')
      .raw();
    this.readReservation = db
      .prepare<[string], ReservationRow>(`SELECT ${COLUMNS} FROM reservations WHERE id = ?`)
      .raw();
    this.readHolds = db
      .prepare<[bigint], ReservationRow>(`SELECT ${COLUMNS} FROM reservations WHERE pet_id = ? AND state = 'held'`)
      .raw();
    this.markExpired = db.prepare<[string]>("UPDATE reservations SET state = 'expired' WHERE id = ?");
    this.dropHeld = db.prepare<[number, number, bigint]>(
      'UPDATE pets SET held = held - ?, version = version + ? WHERE id = ?',
    );
    this.insert = db.prepare<[string, bigint, number, number, number, string]>(
      `INSERT INTO reservations (id, pet_id, quantity, state, created_at_ms, expires_at_ms, actor)
       VALUES (?, ?, ?, 'held', ?, ?, ?)`,
    );
    this.setState = db.prepare<[string, string]>('UPDATE reservations SET state = ? WHERE id = ?');
    this.storePet = db.prepare<[number, string, number, number, bigint]>(
      'UPDATE pets SET quantity = ?, status = ?, held = ?, version = ? WHERE id = ?',
    );
    this.lapsedPets = db
      .prepare<[number, number], bigint>(
        "SELECT DISTINCT pet_id FROM reservations WHERE state = 'held' AND expires_at_ms <= ? LIMIT ?",
      )
      .pluck();
  }

  /**
   * The pet's entry as a write at `atMs` decides on: its lapsed holds are marked expired first (only a
   * pet that holds any is looked at), so that what it holds is what it has reserved.
   */
  entryAt(petId: bigint, atMs: number): InventoryEntry | undefined {
    let row = this.readEntry.get(petId);
    if (row !== undefined && row[4] > 0n && this.markLapsed(petId, atMs) > 0) row = this.readEntry.get(petId);
    return row === undefined ? undefined : entryOfRow(row);
  }

  /**
   * Marks the pet's lapsed holds expired; its held count drops by theirs and its version moves by their
   * number, as their expiry already moved the version readers were shown. Returns how many.
   */
  markLapsed(petId: bigint, nowMs: number): number {
    const lapse = lapseOf(this.readHolds.all(petId).map(reservationOfRow), nowMs);
    if (lapse.expired.length === 0) return 0;
    for (const hold of lapse.expired) this.markExpired.run(hold.id);
    this.dropHeld.run(lapse.quantity, lapse.expired.length, petId);
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

  /** Marks the lapsed holds of some pets with any, in a transaction of its own; returns how many. */
  expire(nowMs: number, max: number): number {
    return this.db
      .transaction(() => {
        let marked = 0;
        for (const petId of this.lapsedPets.all(nowMs, max)) marked += this.markLapsed(petId, nowMs);
        return marked;
      })
      .immediate();
  }

  /** One reservation as stored. */
  get(id: string): Reservation | undefined {
    const row = this.readReservation.get(id);
    return row === undefined ? undefined : reservationOfRow(row);
  }
}
