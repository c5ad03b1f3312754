import type { HoldQuery } from '../../application/ports/inventory-repository.js';
import type { StockLevel } from '../../domain/inventory-item.js';
import { decideLapse, type StoredHolding } from '../../domain/lapse-decision.js';
import type { PetId } from '../../domain/pet-id.js';
import type { KeyedReservation, Reservation } from '../../domain/reservation.js';
import type { ReservationDecision } from '../../domain/reservation-decision.js';
import type { MemoryStore, StoredPet } from './memory-store.js';

const byExpiry = (a: Reservation, b: Reservation): number =>
  a.expiresAtMs - b.expiresAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The reservations of the memory store, beside its pets: what a pet has reserved and how many of its
 * holds lapsed at a time, what a key holds, the marking of lapsed holds, and what a reservation write
 * decided, applied. Each looks at the holds whose time is up alone, never at those still held.
 */
export class MemoryReservations {
  constructor(private readonly store: MemoryStore) {}

  /**
   * What a pet has reserved at `nowMs`, and its version: its entry as the core's `decideLapse` leaves it
   * once the holds lapsed by then are marked, for their expiry already moved what readers see.
   */
  holdingAt(stored: StoredPet, nowMs: number): StoredHolding {
    const holding = { reserved: stored.held, version: stored.version };
    const holds = this.store.holds.get(stored.pet.id);
    if (holds === undefined) return holding;
    const { reserved, version } = decideLapse(holds.lapsed(nowMs), holding, nowMs);
    return { reserved, version };
  }

  /** How many reservations the key holds at `nowMs`. */
  keyHolds(keyId: string, nowMs: number): number {
    const holds = this.store.keyHolds.get(keyId);
    return holds === undefined ? 0 : holds.size - holds.lapsedCount(nowMs);
  }

  /** How many holds of the whole store lapsed unmarked at `nowMs`: part of the list's stamp. */
  lapsedCount(nowMs: number): number {
    let count = 0;
    for (const holds of this.store.holds.values()) count += holds.lapsedCount(nowMs);
    return count;
  }

  /** At most `max` pets with holds lapsed by `nowMs`, unmarked. */
  lapsedPets(nowMs: number, max: number): PetId[] {
    const found: PetId[] = [];
    for (const [petId, holds] of this.store.holds) {
      if (found.length >= max) break;
      if (holds.lapsedCount(nowMs) > 0) found.push(petId);
    }
    return found;
  }

  /** Marks the pet's lapsed holds expired as the core decides (see `decideLapse`); returns how many. */
  markLapsed(petId: PetId, nowMs: number): number {
    const stored = this.store.pets.get(petId);
    const holds = this.store.holds.get(petId);
    if (stored === undefined || holds === undefined) return 0;
    const lapse = decideLapse(holds.lapsed(nowMs), { reserved: stored.held, version: stored.version }, nowMs);
    if (lapse.expired.length === 0) return 0;
    for (const hold of lapse.expired) this.keep(hold);
    stored.held = lapse.reserved;
    stored.version = lapse.version;
    this.store.petsWritten();
    return lapse.expired.length;
  }

  /** The holds `query` names, still held at its time, in order of expiry then id. */
  list(query: HoldQuery): KeyedReservation[] {
    const { petId, keyId, nowMs, after } = query;
    const source =
      petId !== undefined
        ? [this.store.holds.get(petId)]
        : keyId !== undefined
          ? [this.store.keyHolds.get(keyId)]
          : [...this.store.holds.values()];
    const found = source
      .flatMap((holds) => holds?.live(nowMs) ?? [])
      .filter((hold) => (keyId === undefined || hold.keyId === keyId) && (petId === undefined || hold.petId === petId))
      .filter((hold) => after === undefined || byExpiry(hold, { ...hold, ...after }) > 0);
    return found.sort(byExpiry).slice(0, query.limit);
  }

  /** The first key after `after`, in text order, that holds a reservation stored as held. */
  nextHolder(after: string | undefined): string | undefined {
    let next: string | undefined;
    for (const keyId of this.store.keyHolds.keys()) {
      if ((after === undefined || keyId > after) && (next === undefined || keyId < next)) next = keyId;
    }
    return next;
  }

  /**
   * Applies the effects of a decided reservation write by `actor`, as decided: the pet's stock, held count
   * and version are the decision's `entry`, never worked out here. Nothing else runs meanwhile.
   */
  apply({ reservation, entry, change }: ReservationDecision, actor: string): void {
    if (reservation === undefined || entry === undefined) return;
    // A reservation not stored yet is a reserve's: the key that made it is the command's actor.
    if (!this.store.reservations.has(reservation.id)) this.store.reservationKeys.set(reservation.id, actor);
    this.keep(reservation);
    this.setLevel(entry.level, entry.version);
    (this.store.pets.get(entry.level.petId) as StoredPet).held = entry.reserved;
    if (change !== undefined) this.store.changes.push(change);
    this.store.petsWritten();
  }

  /** A pet's stock and version as a write left them. */
  setLevel(level: StockLevel, version: number): void {
    const stored = this.store.pets.get(level.petId) as StoredPet;
    stored.quantity = level.quantity;
    stored.pet = { ...stored.pet, status: level.status };
    stored.version = version;
  }

  /** Stores a reservation, and keeps its pet's and its key's held ones in step with its state. */
  private keep(reservation: Reservation): void {
    const keyId = this.store.reservationKeys.get(reservation.id) as string;
    const before = this.store.reservations.get(reservation.id);
    if (before?.state === 'held') this.store.keepHeld({ ...before, keyId }, false);
    const { id, petId, quantity, state, createdAtMs, expiresAtMs } = reservation;
    // Stored without its key, as a reservation is answered (an expired hold comes with it).
    this.store.reservations.set(id, { id, petId, quantity, state, createdAtMs, expiresAtMs });
    if (state === 'held') this.store.keepHeld({ ...reservation, keyId }, true);
  }
}
