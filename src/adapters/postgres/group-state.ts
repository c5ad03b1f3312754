import { inventoryItem } from '../../domain/inventory-item.js';
import { decideLapse } from '../../domain/lapse-decision.js';
import type { PetId } from '../../domain/pet-id.js';
import type { PetStatus } from '../../domain/pet-status.js';
import { hasLapsed, type KeyedReservation, type Reservation } from '../../domain/reservation.js';
import { decideReservationWrite } from '../../domain/reservation-decision.js';
import type { ReservationCommand, ReservationWriteResult } from '../../domain/reservation-outcome.js';
import type { StockCommand } from '../../domain/stock-command.js';
import { type ClaimFound, decideStockWrite } from '../../domain/stock-decision.js';
import type { StockWriteResult } from '../../domain/stock-outcome.js';
import type { InventoryEntry } from '../../domain/stock-write.js';
import { encodeOutcome } from '../sql/stock-outcome-json.js';
import { newReservationId } from '../web/reservation-id.js';
import { DecidedEffects, type PetState } from './group-effects.js';

/**
 * A pet's entry as `atMs` sees it, with the holds that lapsed by then: the one place this store takes
 * the core's lapse (`decideLapse`) of what the group read, its held count and version as answered; `move`
 * then stores the pet as a decision left it and the lapsed holds in the state answered.
 */
function entryAndLapseAt(
  petId: PetId,
  pet: PetState,
  atMs: number,
): { entry: InventoryEntry; lapsed: readonly Reservation[] } {
  const lapse = decideLapse(pet.holds, { reserved: pet.held, version: pet.version }, atMs);
  // The domain re-checks the row (the status is cast only for the type): a corrupt row throws.
  const item = inventoryItem(petId, pet.quantity, pet.status as PetStatus, lapse.reserved);
  return { entry: { item, version: lapse.version }, lapsed: lapse.expired };
}

const withoutKey = ({ keyId: _, ...reservation }: KeyedReservation): Reservation => reservation;

/**
 * The holds of a key still running at the group's earliest reserve: how many run past its latest
 * command (so at every reserve's time), and the expiry of each of the others by id.
 */
export interface KeyHolds {
  running: number;
  readonly lapsing: Map<string, number>;
}

/**
 * What a group has read under its locks, moved by each command it decides, in the group's order: its
 * pets, the reservations its commits and releases name, the holds of its reserves' keys, the change
 * ids it took; and the effects of its one write. Each command is decided by the core alone on what the
 * commands before it left: a refused command writes nothing, and the others go on.
 */
export class GroupState {
  readonly effects = new DecidedEffects();
  /** Reservations the group moved off held: a key no longer counts them. */
  private readonly ended = new Set<string>();

  constructor(
    readonly pets: Map<bigint, PetState>,
    /** The reservations named by the group's commits and releases, as the group leaves them. */
    private readonly reservations: Map<string, KeyedReservation>,
    /** For each reserve's key, its holds still running at the earliest reserve. */
    private readonly keyHolds: Map<string, KeyHolds>,
    /** The latest command's time: a hold running past it runs at every command's. */
    private readonly latestMs: number,
    /** Change ids, ascending, taken for the group: each command takes the next ones it records. */
    private readonly freeIds: bigint[],
  ) {}

  decideStock(command: StockCommand, claim: ClaimFound | undefined): StockWriteResult {
    const seen = command.orders.map((order) => {
      const pet = this.pets.get(order.petId);
      return pet === undefined ? undefined : { pet, ...entryAndLapseAt(order.petId, pet, command.atMs) };
    });
    const changeIds = this.freeIds.slice(0, command.orders.length);
    const decision = decideStockWrite({ command, entries: seen.map((s) => s?.entry), claim, changeIds });
    // Only a command with no order refused writes, and then its entries are its orders, in their order.
    decision.written.forEach((written, index) => {
      const read = seen[index];
      if (read === undefined) throw new Error('a written entry must be one the store read');
      this.move(read.pet, read.lapsed, written.change.after, written.reserved, written.version);
      this.effects.record(written.change);
    });
    this.freeIds.splice(0, decision.written.length);
    if (decision.claimed !== undefined)
      this.effects.claim(decision.claimed.claim, encodeOutcome(decision.claimed.outcome));
    return decision.result;
  }

  decideReservation(command: ReservationCommand, claim: ClaimFound | undefined): ReservationWriteResult {
    const order = command.reservation;
    const named = order.kind === 'reserve' ? undefined : this.reservations.get(order.reservationId);
    // The core decides on the reservation as every store reads it; the key is the group's to count.
    const reservation = named === undefined ? undefined : withoutKey(named);
    const petId = order.kind === 'reserve' ? order.petId : reservation?.petId;
    const pet = petId === undefined ? undefined : this.pets.get(petId);
    const seen = pet === undefined || petId === undefined ? undefined : entryAndLapseAt(petId, pet, command.atMs);
    const [changeId] = this.freeIds;
    if (changeId === undefined) throw new Error('a group takes a change id for each reservation write');
    const decision = decideReservationWrite({
      command,
      entry: seen?.entry,
      reservation,
      keyHolds: order.kind === 'reserve' ? this.keyHoldsAt(command.actor, command.atMs) : 0,
      claim,
      newId: newReservationId(),
      changeId,
    });
    this.freeIds.splice(0, 1);
    const { reservation: written, entry, change, claimed } = decision;
    if (written !== undefined && entry !== undefined) {
      if (pet === undefined || seen === undefined) throw new Error('a written reservation must be of a pet read');
      this.move(pet, seen.lapsed, entry.level, entry.reserved, entry.version);
      if (order.kind === 'reserve') {
        this.effects.create(written, command.actor);
        pet.holds.push(written);
        this.count(command.actor, written, 1);
      } else {
        this.settle(written.id, written.state);
        pet.holds = pet.holds.filter((hold) => hold.id !== written.id);
      }
    }
    if (change !== undefined) this.effects.record(change);
    if (claimed !== undefined) this.effects.claim(claimed.claim, encodeOutcome(claimed.outcome));
    return decision.result;
  }

  /** Marks expired every hold of the group's pets that lapsed by `atMs` (the purge); answers how many. */
  expire(atMs: number): number {
    let marked = 0;
    for (const [petId, pet] of this.pets) {
      const { entry, lapsed } = entryAndLapseAt(petId as PetId, pet, atMs);
      if (lapsed.length === 0) continue;
      this.move(pet, lapsed, pet, entry.item.reserved, entry.version);
      marked += lapsed.length;
    }
    return marked;
  }

  /** How many holds `actor` has at `atMs`, as the group leaves them. */
  private keyHoldsAt(actor: string, atMs: number): number {
    const holds = this.keyHolds.get(actor);
    if (holds === undefined) return 0;
    let count = holds.running;
    for (const [id, expiresAtMs] of holds.lapsing) {
      if (!hasLapsed(expiresAtMs, atMs) && !this.ended.has(id)) count += 1;
    }
    return count;
  }

  /** Adds a hold of `actor` to (or, with -1, takes one from) the holds its key counts. */
  private count(actor: string, hold: Reservation, by: 1 | -1): void {
    const holds = this.keyHolds.get(actor);
    if (holds === undefined) return;
    if (!hasLapsed(hold.expiresAtMs, this.latestMs)) holds.running += by;
    else if (by === 1) holds.lapsing.set(hold.id, hold.expiresAtMs);
  }

  private settle(id: string, state: Reservation['state']): void {
    this.ended.add(id);
    this.effects.settle(id, state);
    const named = this.reservations.get(id);
    if (named === undefined || named.state !== 'held') return;
    this.reservations.set(id, { ...named, state });
    // A hold running past the latest command is counted by its key's number, not by its id.
    this.count(named.keyId, named, -1);
  }

  /**
   * Moves a pet to what a decision wrote; the holds that lapsed on the way (`decideLapse`'s, see
   * entryAndLapseAt) are stored with it in the state the core answered.
   */
  private move(
    pet: PetState,
    lapsed: readonly Reservation[],
    level: { readonly quantity: number; readonly status: string },
    held: number,
    version: number,
  ): void {
    pet.quantity = level.quantity;
    pet.status = level.status;
    pet.held = held;
    pet.version = version;
    pet.written = true;
    if (lapsed.length === 0) return;
    const gone = new Set(lapsed.map((hold) => hold.id));
    pet.holds = pet.holds.filter((hold) => !gone.has(hold.id));
    for (const hold of lapsed) this.settle(hold.id, hold.state);
  }
}
