// @ts-check
import { decideLapse, decideReservationWrite, decideStockWrite, inventoryItem, stateAt } from 'petstore-inventory';
import { broken } from './ledger.js';

/**
 * @import { Clock, HoldQuery, KeyedReservation, InventoryRepository, StockChangeLog, StockChangeFeed, FeedEntry, FeedPosition, InventoryQuery, InventoryEntry, InventoryItem, PetId, Reservation, StockCommand, StockWriteResult, StockDecision, ReservationCommand, ReservationWriteResult, IdempotencyClaim, StockOutcome, StockChange, StockChangePage, ClaimFound } from 'petstore-inventory'
 * @import { Ledger } from './ledger.js'
 */

const CHUNK = 1_000;

/** @param {string} scope @param {string} key */
const claimKey = (scope, key) => `${scope} ${key}`;

/**
 * Soonest to lapse first, then by id: the order holds are listed in.
 * @param {{ expiresAtMs: number, id: string }} a @param {{ expiresAtMs: number, id: string }} b
 */
const byExpiry = (a, b) => a.expiresAtMs - b.expiresAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** A reservation id: `res_` and 128 random bits in hexadecimal. */
function newReservationId() {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return `res_${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * Stock, its history and reservations, over a ledger. Each write reads what the core's decision needs,
 * asks it (`decideStockWrite`, `decideReservationWrite`) and applies the answer, with no `await` between.
 *
 * @implements {InventoryRepository}
 * @implements {StockChangeLog}
 * @implements {StockChangeFeed}
 */
export class LedgerInventory {
  /** @param {Ledger} ledger @param {Clock} clock the time what is reserved is read at */
  constructor(ledger, clock) {
    this.ledger = ledger;
    this.clock = clock;
  }

  /**
   * Entries in id order after `query.after`, at most `query.limit`, only those with one of
   * `query.statuses` and available at or below `query.maxAvailable` when given. The ledger keeps no
   * index, so a filter walks the ids: fine for a store of a few thousand pets.
   * @param {InventoryQuery} [query] @returns {AsyncIterable<readonly InventoryItem[]>}
   */
  async *list(query = {}) {
    /** @param {InventoryItem} item */
    const matches = (item) =>
      (query.statuses === undefined || query.statuses.includes(item.status)) &&
      (query.maxAvailable === undefined || item.quantity - item.reserved <= query.maxAvailable);
    let after = query.after;
    let left = query.limit ?? Number.POSITIVE_INFINITY;
    while (left > 0) {
      const from = this.ledger.firstAfter(after);
      const ids = this.ledger.ids().slice(from, from + CHUNK);
      if (ids.length === 0) return;
      const nowMs = this.clock.nowMs();
      // Broken on purpose: the chunk's pets in the order they were added, not by id.
      const shown = broken === 'list-order' ? [...this.ledger.rows.keys()].filter((id) => ids.includes(id)) : ids;
      const chunk = shown
        .map((id) => /** @type {InventoryEntry} */ (this.entryAt(id, nowMs)).item)
        .filter(matches)
        .slice(0, left);
      left -= chunk.length;
      after = ids[ids.length - 1];
      if (chunk.length > 0) yield chunk;
    }
  }

  /** @param {PetId} petId */
  async get(petId) {
    return this.entryAt(petId, this.clock.nowMs());
  }

  /** Moves with every write, and with every hold that lapsed since (which changes what is reserved). */
  async stamp() {
    const nowMs = this.clock.nowMs();
    let lapsed = 0;
    for (const petId of this.ledger.held.keys()) lapsed += this.lapsed(petId, nowMs).length;
    return `${this.ledger.epoch}.${this.ledger.writes}.${lapsed}`;
  }

  /** @param {StockCommand} command @returns {Promise<StockWriteResult>} */
  async write(command) {
    for (const order of command.orders) this.markLapsed(order.petId, command.atMs);
    const firstId = this.ledger.changes.length + 1;
    const decision = decideStockWrite({
      command,
      entries: command.orders.map((order) => this.entryAt(order.petId, command.atMs)),
      claim: this.claimOf(command.idempotency),
      changeIds: command.orders.map((_, i) => BigInt(firstId + i)),
    });
    this.applyStock(decision);
    return decision.result;
  }

  /** @param {StockDecision} decision */
  applyStock({ written, claimed }) {
    for (const { change, version } of written) {
      this.setStock(change.after, version);
      // Broken on purpose: the stock moves, but its change goes unrecorded.
      if (broken !== 'no-change-record') this.ledger.changes.push(change);
    }
    if (written.length > 0) this.ledger.writes += 1;
    if (claimed !== undefined) this.keepClaim(claimed.claim, claimed.outcome);
  }

  /** @param {ReservationCommand} command @returns {Promise<ReservationWriteResult>} */
  async writeReservation(command) {
    const order = command.reservation;
    const stored = order.kind === 'reserve' ? undefined : this.ledger.reservations.get(order.reservationId);
    const petId = order.kind === 'reserve' ? order.petId : stored?.petId;
    if (petId !== undefined) this.markLapsed(petId, command.atMs);
    const decision = decideReservationWrite({
      command,
      entry: petId === undefined ? undefined : this.entryAt(petId, command.atMs),
      // Read again: marking the lapsed holds may have expired it.
      reservation: stored && this.ledger.reservations.get(stored.id),
      claim: this.claimOf(command.idempotency),
      // The key's holds, counted in this same synchronous stretch: two reserves never both pass its limit.
      keyHolds: order.kind === 'reserve' ? this.keyHolds(command.actor, command.atMs) : 0,
      newId: newReservationId(),
      changeId: BigInt(this.ledger.changes.length + 1),
    });
    const { reservation, entry, change, claimed } = decision;
    if (reservation !== undefined && entry !== undefined) {
      if (order.kind === 'reserve') this.ledger.holders.set(reservation.id, command.actor);
      this.keepReservation(reservation);
      this.setStock(entry.level, entry.version);
      if (change !== undefined) this.ledger.changes.push(change);
      this.ledger.writes += 1;
    }
    if (claimed !== undefined) this.keepClaim(claimed.claim, claimed.outcome);
    return decision.result;
  }

  /** @param {string} id */
  async getReservation(id) {
    return this.ledger.reservations.get(id);
  }

  /**
   * The holds still held at `query.nowMs` of its pet and key, soonest to lapse first, then by id. The
   * ledger walks every hold stored as held: fine for a store of a few thousand.
   * @param {HoldQuery} query @returns {Promise<readonly KeyedReservation[]>}
   */
  async listHolds(query) {
    const { petId, keyId, nowMs, after } = query;
    return this.storedHeld()
      .filter((hold) => stateAt(hold, nowMs) === 'held')
      .filter((hold) => (petId === undefined || hold.petId === petId) && (keyId === undefined || hold.keyId === keyId))
      .filter((hold) => after === undefined || byExpiry(hold, after) > 0)
      .sort(byExpiry)
      .slice(0, query.limit);
  }

  /** The first key id after `after`, in text order, with a reservation stored as held. @param {string | undefined} after */
  async nextHolder(after) {
    /** @type {string | undefined} */
    let next;
    for (const { keyId } of this.storedHeld()) {
      if ((after === undefined || keyId > after) && (next === undefined || keyId < next)) next = keyId;
    }
    return next;
  }

  /** How many reservations `keyId` holds at `nowMs`. @param {string} keyId @param {number} nowMs */
  keyHolds(keyId, nowMs) {
    return this.storedHeld().filter((hold) => hold.keyId === keyId && stateAt(hold, nowMs) === 'held').length;
  }

  /** Every reservation stored as held (its time up or not), with its key. @returns {KeyedReservation[]} */
  storedHeld() {
    return [...this.ledger.held.keys()].flatMap((petId) =>
      this.holdsOf(petId).map((hold) => ({ ...hold, keyId: this.ledger.holders.get(hold.id) ?? '' })),
    );
  }

  /** @param {number} nowMs @param {number} max */
  async petsWithLapsedHolds(nowMs, max) {
    return [...this.ledger.held.keys()].filter((petId) => this.lapsed(petId, nowMs).length > 0).slice(0, max);
  }

  /** @param {PetId} petId @param {number} nowMs */
  async markLapse(petId, nowMs) {
    return this.markLapsed(petId, nowMs);
  }

  /** @param {number} nowMs @param {number} max */
  async forgetExpiredOutcomes(nowMs, max) {
    let forgotten = 0;
    for (const [key, claim] of this.ledger.claims) {
      if (forgotten >= max) break;
      if (claim.expiresAtMs > nowMs) continue;
      this.ledger.claims.delete(key);
      forgotten += 1;
    }
    return forgotten;
  }

  /** Newest first. @param {PetId} petId @param {StockChangePage} page */
  async history(petId, page) {
    if (!this.ledger.rows.has(petId)) return undefined;
    /** @type {StockChange[]} */
    const found = [];
    const end = page.before === undefined ? this.ledger.changes.length : Number(page.before) - 1;
    for (let i = Math.min(end, this.ledger.changes.length) - 1; i >= 0 && found.length < page.limit; i -= 1) {
      const change = /** @type {StockChange} */ (this.ledger.changes[i]);
      if (change.after.petId === petId) found.push(change);
    }
    return found;
  }

  /**
   * Every change after `after`, oldest first: a change's id is its position in the ledger plus one, and
   * every position is in transaction 0. A position the ledger never gave (another transaction, or an id
   * past the last change) is `undefined`, so that a forged cursor is refused instead of read as "nothing
   * new" for ever.
   * @param {FeedPosition} after @param {number} limit @returns {Promise<readonly FeedEntry[] | undefined>}
   */
  async changesAfter(after, limit) {
    if (after.txn !== 0n || after.id < 0n || after.id > BigInt(this.ledger.changes.length)) return undefined;
    const start = Number(after.id);
    return this.ledger.changes
      .slice(start, start + limit)
      .map((change) => ({ change, position: { txn: 0n, id: change.id } }));
  }

  /**
   * The entry at `nowMs`: only holds still held count as reserved, and each hold lapsed since the last
   * write moves the version, so a reader sees the change before anything marks it.
   * @param {PetId} petId @param {number} nowMs @returns {InventoryEntry | undefined}
   */
  entryAt(petId, nowMs) {
    const row = this.ledger.rows.get(petId);
    if (row === undefined) return undefined;
    const holds = this.holdsOf(petId);
    const reserved = holds
      .filter((hold) => stateAt(hold, nowMs) === 'held')
      .reduce((sum, hold) => sum + hold.quantity, 0);
    const lapsed = holds.length - holds.filter((hold) => stateAt(hold, nowMs) === 'held').length;
    return { item: inventoryItem(petId, row.quantity, row.pet.status, reserved), version: row.version + lapsed };
  }

  /** @param {PetId} petId @returns {Reservation[]} */
  holdsOf(petId) {
    const ids = this.ledger.held.get(petId) ?? new Set();
    return [...ids].map((id) => /** @type {Reservation} */ (this.ledger.reservations.get(id)));
  }

  /** @param {PetId} petId @param {number} nowMs */
  lapsed(petId, nowMs) {
    return this.holdsOf(petId).filter((hold) => stateAt(hold, nowMs) !== 'held');
  }

  /**
   * Marks the pet's lapsed holds expired as the core decides (`decideLapse`): the holds, and the
   * version moved by one each; what it holds is the sum of its held ones. Answers how many.
   * @param {PetId} petId @param {number} nowMs
   */
  markLapsed(petId, nowMs) {
    const row = this.ledger.rows.get(petId);
    if (row === undefined) return 0;
    const holds = this.holdsOf(petId);
    const reserved = holds.reduce((sum, hold) => sum + hold.quantity, 0);
    const lapse = decideLapse(holds, { reserved, version: row.version }, nowMs);
    if (lapse.expired.length === 0) return 0;
    row.version = lapse.version;
    for (const hold of lapse.expired) this.keepReservation(hold);
    this.ledger.writes += 1;
    return lapse.expired.length;
  }

  /** @param {Reservation} reservation */
  keepReservation(reservation) {
    this.ledger.reservations.set(reservation.id, reservation);
    const ids = this.ledger.held.get(reservation.petId) ?? new Set();
    if (reservation.state === 'held') ids.add(reservation.id);
    else ids.delete(reservation.id);
    if (ids.size === 0) this.ledger.held.delete(reservation.petId);
    else this.ledger.held.set(reservation.petId, ids);
  }

  /** @param {{ petId: PetId, quantity: import('petstore-inventory').Quantity, status: import('petstore-inventory').PetStatus }} level @param {number} version */
  setStock(level, version) {
    const row = /** @type {import('./ledger.js').Row} */ (this.ledger.rows.get(level.petId));
    row.quantity = level.quantity;
    row.pet = { ...row.pet, status: level.status };
    row.version = version;
  }

  /** @param {IdempotencyClaim | undefined} claim @returns {ClaimFound | undefined} */
  claimOf(claim) {
    if (claim === undefined) return undefined;
    return { stored: this.ledger.claims.get(claimKey(claim.scope, claim.key)), heldElsewhere: false };
  }

  /** @param {IdempotencyClaim} claim @param {import('petstore-inventory').StoredClaim['outcome']} outcome */
  keepClaim(claim, outcome) {
    this.ledger.claims.set(claimKey(claim.scope, claim.key), {
      fingerprint: claim.fingerprint,
      expiresAtMs: claim.expiresAtMs,
      outcome,
    });
  }
}
