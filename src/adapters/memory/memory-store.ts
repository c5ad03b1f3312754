import type { ApiKeyRecord, KeyAuditEntry } from '../../domain/api-key.js';
import type { Order } from '../../domain/order.js';
import type { Pet } from '../../domain/pet.js';
import type { PetId } from '../../domain/pet-id.js';
import type { Quantity } from '../../domain/quantity.js';
import type { KeyedReservation, Reservation } from '../../domain/reservation.js';
import type { StockChange } from '../../domain/stock-change.js';
import type { StoredClaim } from '../../domain/stock-decision.js';
import { HeldByExpiry } from './held-by-expiry.js';

/** One pet and its stock, kept together as the SQLite adapter keeps them in one row. */
export interface StoredPet {
  pet: Pet;
  quantity: Quantity;
  /** 1 when added, one more with every stock change. */
  version: number;
  /**
   * The sum of the quantities of the pet's reservations stored as held, lapsed or not, as the core's
   * decisions last set it (a reservation write's `entry.reserved`, a lapse's `reserved`): the SQL
   * stores' `held` column.
   */
  held: number;
}

function keepIn<K>(map: Map<K, HeldByExpiry>, key: K, hold: KeyedReservation, held: boolean): void {
  const kept = map.get(key) ?? new HeldByExpiry();
  if (held) kept.add(hold);
  else kept.remove(hold);
  if (kept.size === 0) map.delete(key);
  else map.set(key, kept);
}

/**
 * The state the in-memory repositories share, so that an update and its stock-change record land
 * together, as they do in one SQLite transaction.
 */
export class MemoryStore {
  readonly pets = new Map<PetId, StoredPet>();
  /** Pet ids in ascending order, kept sorted on insert so listing needs no sort. */
  readonly sortedIds: PetId[] = [];
  /** Every stock change, oldest first; a change's id is its position plus one. */
  readonly changes: StockChange[] = [];
  /** Every reservation, by id. */
  readonly reservations = new Map<string, Reservation>();
  /** The key that made each reservation, by the reservation's id. */
  readonly reservationKeys = new Map<string, string>();
  /** Each pet's reservations stored as held (expired or not), by expiry; a pet without any has none. */
  readonly holds = new Map<PetId, HeldByExpiry>();
  /** Each key's reservations stored as held (expired or not), by expiry; a key without any has none. */
  readonly keyHolds = new Map<string, HeldByExpiry>();
  /** The stored outcomes of idempotent writes, by scope and key. */
  readonly claims = new Map<string, StoredClaim>();
  readonly orders = new Map<bigint, Order>();
  readonly keys = new Map<string, { record: ApiKeyRecord; hash: string }>();
  readonly keyIdsByHash = new Map<string, string>();
  /** The key audit trail, oldest first; an entry's seq is its position plus one. */
  readonly keyAudit: KeyAuditEntry[] = [];
  /** Counts writes to pets and their stock; the inventory's revision. Every such write calls petsWritten. */
  private petWrites = 0;

  /** Keeps `hold` among its pet's and its key's held reservations (`held`), or takes it out. */
  keepHeld(hold: KeyedReservation, held: boolean): void {
    keepIn(this.holds, hold.petId, hold, held);
    keepIn(this.keyHolds, hold.keyId, hold, held);
  }

  petsWritten(): void {
    this.petWrites += 1;
  }

  /** Random per store, so that a new store (a restart) never repeats an earlier store's stamps. */
  private readonly epoch = globalThis.crypto.randomUUID();

  /** Changes with every write to pets or stock, so equal values mean an unchanged inventory. */
  petsStamp(): string {
    return `${this.epoch}.${this.petWrites}`;
  }

  insertPetId(id: PetId): void {
    let lo = 0;
    let hi = this.sortedIds.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.sortedIds[mid] as PetId) < id) lo = mid + 1;
      else hi = mid;
    }
    this.sortedIds.splice(lo, 0, id);
  }

  /** Index of the first id greater than `after`. */
  firstIndexAfter(after: PetId | undefined): number {
    if (after === undefined) return 0;
    let lo = 0;
    let hi = this.sortedIds.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.sortedIds[mid] as PetId) <= after) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
