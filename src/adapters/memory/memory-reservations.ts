import type { StockLevel } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import { type Lapse, lapseOf, type Reservation } from '../../domain/reservation.js';
import type { ReservationDecision } from '../../domain/reservation-decision.js';
import type { MemoryStore, StoredPet } from './memory-store.js';

/**
 * The reservations of the memory store, beside its pets: what a pet has reserved and how many of its
 * holds lapsed at a time, the marking of lapsed holds, and what a reservation write decided, applied.
 */
export class MemoryReservations {
  constructor(private readonly store: MemoryStore) {}

  /** A pet's reservations stored as held. */
  holdsOf(petId: PetId): Reservation[] {
    const ids = this.store.holds.get(petId);
    if (ids === undefined) return [];
    return [...ids].map((id) => this.store.reservations.get(id) as Reservation);
  }

  /** What a pet has reserved at `nowMs`, and how many of its holds lapsed unmarked (which its version counts). */
  standing(petId: PetId, nowMs: number): { readonly reserved: number; readonly lapsed: number } {
    if (!this.store.holds.has(petId)) return { reserved: 0, lapsed: 0 };
    const holds = this.holdsOf(petId);
    const lapse = lapseOf(holds, nowMs);
    const held = holds.reduce((sum, hold) => sum + hold.quantity, 0);
    return { reserved: held - lapse.quantity, lapsed: lapse.expired.length };
  }

  /** How many holds of the whole store lapsed unmarked at `nowMs`: part of the list's stamp. */
  lapsedCount(nowMs: number): number {
    let count = 0;
    for (const petId of this.store.holds.keys()) count += lapseOf(this.holdsOf(petId), nowMs).expired.length;
    return count;
  }

  /** Marks the pet's lapsed holds expired; its version moves by their count (see `Lapse`). */
  markLapsed(petId: PetId, nowMs: number): Lapse {
    const lapse = lapseOf(this.holdsOf(petId), nowMs);
    if (lapse.expired.length === 0) return lapse;
    const stored = this.store.pets.get(petId) as StoredPet;
    stored.version += lapse.expired.length;
    for (const hold of lapse.expired) this.keep(hold);
    this.store.petsWritten();
    return lapse;
  }

  /** Applies the effects of a decided reservation write; nothing else runs meanwhile. */
  apply({ reservation, entry, change }: ReservationDecision): void {
    if (reservation === undefined || entry === undefined) return;
    this.keep(reservation);
    this.setLevel(entry.level, entry.version);
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

  /** Stores a reservation, and keeps its pet's held ids in step with its state. */
  private keep(reservation: Reservation): void {
    this.store.reservations.set(reservation.id, reservation);
    const ids = this.store.holds.get(reservation.petId) ?? new Set<string>();
    if (reservation.state === 'held') ids.add(reservation.id);
    else ids.delete(reservation.id);
    if (ids.size === 0) this.store.holds.delete(reservation.petId);
    else this.store.holds.set(reservation.petId, ids);
  }
}
