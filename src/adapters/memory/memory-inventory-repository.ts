import type { Clock } from '../../application/ports/clock.js';
import type {
  HoldQuery,
  InventoryQuery,
  InventoryRepository,
  NamedInventoryItem,
  NamedInventoryQuery,
} from '../../application/ports/inventory-repository.js';
import type { StockChangeLog, StockChangePage } from '../../application/ports/stock-change-log.js';
import { availableFrom, type InventoryItem, inventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { KeyedReservation, Reservation } from '../../domain/reservation.js';
import { decideReservationWrite } from '../../domain/reservation-decision.js';
import type { ReservationCommand, ReservationWriteResult } from '../../domain/reservation-outcome.js';
import type { StockChange } from '../../domain/stock-change.js';
import type { IdempotencyClaim, StockCommand } from '../../domain/stock-command.js';
import { decideStockWrite, type StockDecision, type StoredOutcome } from '../../domain/stock-decision.js';
import type { StockWriteResult } from '../../domain/stock-outcome.js';
import type { InventoryEntry } from '../../domain/stock-write.js';
import { newReservationId } from '../web/reservation-id.js';
import { MemoryReservations } from './memory-reservations.js';
import type { MemoryStore, StoredPet } from './memory-store.js';

const CHUNK = 1_000;

const claimKey = (scope: string, key: string): string => `${scope}\u0000${key}`;

/**
 * Stock levels in process memory. Single-threaded JavaScript makes each write atomic: nothing else
 * runs between its read and its write, as nothing else would inside a store's transaction.
 */
export class MemoryInventoryRepository implements InventoryRepository, StockChangeLog {
  private readonly reservations: MemoryReservations;

  /** `clock` is the time what is reserved is read at. */
  constructor(
    private readonly store: MemoryStore,
    private readonly clock: Clock,
  ) {
    this.reservations = new MemoryReservations(store);
  }

  async *list(query: InventoryQuery = {}): AsyncIterable<readonly InventoryItem[]> {
    if (query.statuses !== undefined || query.maxAvailable !== undefined) {
      yield* this.filteredList(query);
      return;
    }
    let index = this.store.firstIndexAfter(query.after);
    let left = query.limit ?? Number.POSITIVE_INFINITY;
    while (left > 0) {
      const ids = this.store.sortedIds.slice(index, index + Math.min(CHUNK, left));
      if (ids.length === 0) return;
      const nowMs = this.clock.nowMs();
      const chunk = ids.map((id) => this.itemOf(this.store.pets.get(id) as StoredPet, nowMs));
      left -= ids.length;
      yield chunk;
      // Resume after the last id yielded, not at a position: the list may have changed meanwhile.
      index = this.store.firstIndexAfter(ids[ids.length - 1]);
    }
  }

  /**
   * The filters walk the ids in order and test each stored pet before making an item of it: memory
   * keeps no index by status or stock (a write would have to move a pet within sorted arrays), so a
   * sparse filter reads every pet after `after`: about 2 s for a page of rare low stock among 1,000,000
   * pets (bench/README.md), where SQLite answers it from an index in under a millisecond.
   */
  private async *filteredList(query: InventoryQuery): AsyncIterable<readonly InventoryItem[]> {
    let index = this.store.firstIndexAfter(query.after);
    let left = query.limit ?? Number.POSITIVE_INFINITY;
    const ids = this.store.sortedIds;
    while (left > 0 && index < ids.length) {
      const nowMs = this.clock.nowMs();
      const chunk: InventoryItem[] = [];
      let last: PetId | undefined;
      for (; index < ids.length && chunk.length < Math.min(CHUNK, left); index += 1) {
        last = ids[index] as PetId;
        const stored = this.store.pets.get(last) as StoredPet;
        if (this.passes(stored, query, nowMs)) chunk.push(this.itemOf(stored, nowMs));
      }
      left -= chunk.length;
      if (chunk.length > 0) yield chunk;
      index = this.store.firstIndexAfter(last);
    }
  }

  /** Whether a stored pet passes the query's filters: what is available is read only for pets that hold. */
  private passes(stored: StoredPet, query: InventoryQuery, nowMs: number): boolean {
    if (query.statuses !== undefined && !query.statuses.includes(stored.pet.status)) return false;
    const max = query.maxAvailable;
    // Available is never above what is on hand, and equal to it for a pet without holds.
    if (max === undefined || stored.quantity <= max) return true;
    if (!this.store.holds.has(stored.pet.id)) return false;
    return availableFrom(stored.quantity, this.reservations.holdingAt(stored, nowMs).reserved) <= max;
  }

  /**
   * A walk of the ids in order, as the filters' (memory keeps no index of names either): a rare name
   * reads every pet after `after`.
   */
  async listNamed(query: NamedInventoryQuery): Promise<readonly NamedInventoryItem[]> {
    const text = query.nameContains?.toLowerCase();
    const ids = this.store.sortedIds;
    const nowMs = this.clock.nowMs();
    const page: NamedInventoryItem[] = [];
    for (
      let index = this.store.firstIndexAfter(query.after);
      index < ids.length && page.length < query.limit;
      index += 1
    ) {
      const stored = this.store.pets.get(ids[index] as PetId) as StoredPet;
      if (text !== undefined && !stored.pet.name.toLowerCase().includes(text)) continue;
      if (!this.passes(stored, query, nowMs)) continue;
      const { name, category } = stored.pet;
      page.push({ ...this.itemOf(stored, nowMs), name, ...(category === undefined ? {} : { category }) });
    }
    return page;
  }

  async get(petId: PetId): Promise<InventoryEntry | undefined> {
    return this.entryOf(petId, this.clock.nowMs());
  }

  /** The writes' count, and how many holds lapsed unmarked since: an expiry changes the list too. */
  async stamp(): Promise<string> {
    return `${this.store.petsStamp()}.${this.reservations.lapsedCount(this.clock.nowMs())}`;
  }

  async write(command: StockCommand): Promise<StockWriteResult> {
    const claim = command.idempotency;
    const firstId = this.store.changes.length + 1;
    for (const order of command.orders) this.reservations.markLapsed(order.petId, command.atMs);
    return this.apply(
      decideStockWrite({
        command,
        entries: command.orders.map((order) => this.entryOf(order.petId, command.atMs)),
        claim:
          claim === undefined
            ? undefined
            : { stored: this.store.claims.get(claimKey(claim.scope, claim.key)), heldElsewhere: false },
        // Ids are positions plus one, so the next changes get the next positions.
        changeIds: command.orders.map((_, i) => BigInt(firstId + i)),
      }),
    );
  }

  /** Applies a decided write; nothing else runs meanwhile, which makes it atomic. */
  private apply({ result, written, claimed }: StockDecision): StockWriteResult {
    for (const { change, version } of written) {
      this.reservations.setLevel(change.after, version);
      this.store.changes.push(change);
    }
    if (written.length > 0) this.store.petsWritten();
    if (claimed !== undefined) this.keepClaim(claimed.claim, claimed.outcome);
    return result;
  }

  async writeReservation(command: ReservationCommand): Promise<ReservationWriteResult> {
    const order = command.reservation;
    const claim = command.idempotency;
    const reservation = order.kind === 'reserve' ? undefined : this.store.reservations.get(order.reservationId);
    const petId = order.kind === 'reserve' ? order.petId : reservation?.petId;
    if (petId !== undefined) this.reservations.markLapsed(petId, command.atMs);
    const decision = decideReservationWrite({
      command,
      entry: petId === undefined ? undefined : this.entryOf(petId, command.atMs),
      keyHolds: order.kind === 'reserve' ? this.reservations.keyHolds(command.actor, command.atMs) : 0,
      // Read again: marking the lapsed holds may have expired it.
      reservation: reservation && this.store.reservations.get(reservation.id),
      claim:
        claim === undefined
          ? undefined
          : { stored: this.store.claims.get(claimKey(claim.scope, claim.key)), heldElsewhere: false },
      newId: newReservationId(),
      changeId: BigInt(this.store.changes.length + 1),
    });
    this.reservations.apply(decision, command.actor);
    if (decision.claimed !== undefined) this.keepClaim(decision.claimed.claim, decision.claimed.outcome);
    return decision.result;
  }

  async getReservation(id: string): Promise<Reservation | undefined> {
    return this.store.reservations.get(id);
  }

  async listHolds(query: HoldQuery): Promise<readonly KeyedReservation[]> {
    return this.reservations.list(query);
  }

  async nextHolder(after: string | undefined): Promise<string | undefined> {
    return this.reservations.nextHolder(after);
  }

  async petsWithLapsedHolds(nowMs: number, max: number): Promise<readonly PetId[]> {
    return this.reservations.lapsedPets(nowMs, max);
  }

  async markLapse(petId: PetId, nowMs: number): Promise<number> {
    return this.reservations.markLapsed(petId, nowMs);
  }

  private keepClaim(claim: IdempotencyClaim, outcome: StoredOutcome): void {
    this.store.claims.set(claimKey(claim.scope, claim.key), {
      fingerprint: claim.fingerprint,
      expiresAtMs: claim.expiresAtMs,
      outcome,
    });
  }

  /** The pet's item at `nowMs`: its holds still held are reserved. */
  private itemOf(stored: StoredPet, nowMs: number): InventoryItem {
    const { reserved } = this.reservations.holdingAt(stored, nowMs);
    return inventoryItem(stored.pet.id, stored.quantity, stored.pet.status, reserved);
  }

  /** The entry at `nowMs`: each hold lapsed since its last write moved its version (see InventoryRepository). */
  private entryOf(petId: PetId, nowMs: number): InventoryEntry | undefined {
    const stored = this.store.pets.get(petId);
    if (stored === undefined) return undefined;
    const { reserved, version } = this.reservations.holdingAt(stored, nowMs);
    return { item: inventoryItem(petId, stored.quantity, stored.pet.status, reserved), version };
  }

  async forgetExpiredOutcomes(nowMs: number, max: number): Promise<number> {
    let forgotten = 0;
    for (const [key, claim] of this.store.claims) {
      if (forgotten >= max) break;
      if (claim.expiresAtMs > nowMs) continue;
      this.store.claims.delete(key);
      forgotten += 1;
    }
    return forgotten;
  }

  async history(petId: PetId, page: StockChangePage): Promise<readonly StockChange[] | undefined> {
    if (!this.store.pets.has(petId)) return undefined;
    const found: StockChange[] = [];
    // Ids are positions plus one, so a page starts just below `before` and walks back.
    const start =
      page.before === undefined
        ? this.store.changes.length
        : Math.min(Number(page.before) - 1, this.store.changes.length);
    for (let i = start - 1; i >= 0 && found.length < page.limit; i -= 1) {
      const change = this.store.changes[i] as StockChange;
      if (change.after.petId === petId) found.push(change);
    }
    return found;
  }
}
