import { availableOf, levelOf, type StockLevel, withStock } from './inventory-item.js';
import { type Quantity, quantity as toQuantity } from './quantity.js';
import { DEFAULT_HOLD_LIMITS, type Reservation, stateAt } from './reservation.js';
import {
  type ReservationCommand,
  type ReservationOutcome,
  type ReservationRefusal,
  type ReservationWriteResult,
  type ReserveOrder,
  reservationResultOf,
  type SettleOrder,
} from './reservation-outcome.js';
import { fail } from './result.js';
import type { StockChange } from './stock-change.js';
import type { IdempotencyClaim } from './stock-command.js';
import { type ClaimFound, claimAnswer } from './stock-decision.js';
import type { InventoryEntry } from './stock-write.js';

/** Everything a reservation write is decided from, as the store read it inside its transaction. */
export interface ReservationWriteInput {
  readonly command: ReservationCommand;
  /**
   * The entry of the order's pet (a commit's or release's: its reservation's pet), read after the pet's
   * lapsed holds were marked expired, so its `reserved` is every hold still held; undefined when none.
   */
  readonly entry: InventoryEntry | undefined;
  /**
   * How many reservations the command's actor (its key) holds at the command's time, counted inside the
   * write's transaction so that two reserves of one key cannot both pass its limit: a reserve's; 0 for
   * a commit or a release, which read none.
   */
  readonly keyHolds: number;
  /** A commit's or release's reservation, as stored (after that marking); undefined when unknown. */
  readonly reservation: Reservation | undefined;
  /** What the store found of the command's claim; undefined for a command without one. */
  readonly claim: ClaimFound | undefined;
  /** The id a new reservation takes (a reserve order's). */
  readonly newId: string;
  /** The id of the change a commit records. */
  readonly changeId: bigint;
}

/** The pet's row as a reservation write leaves it: its stock, what is held of it, its next version. */
export interface ReservedEntry {
  readonly level: StockLevel;
  readonly reserved: Quantity;
  readonly version: number;
}

/**
 * What a store does with a decided reservation write, all in one transaction: store `reservation` (a new
 * one for a reserve, else its new state), the pet's row as `entry` says, `change` in the history (a
 * commit's), the claim's outcome when there is one, and answer `result`. A refusal or a repeat writes
 * nothing but the claim.
 */
export interface ReservationDecision {
  readonly result: ReservationWriteResult;
  readonly reservation: Reservation | undefined;
  readonly entry: ReservedEntry | undefined;
  readonly change: StockChange | undefined;
  readonly claimed: { readonly claim: IdempotencyClaim; readonly outcome: ReservationOutcome } | undefined;
}

type Judged =
  | { readonly refusal: ReservationRefusal }
  | { readonly reservation: Reservation; readonly entry?: ReservedEntry; readonly change?: StockChange };

/**
 * A reserve holds at most what is available (on hand less what held reservations set aside), for no
 * longer than its limits allow, and only while its key holds fewer reservations than they allow. The
 * length comes first (it is the request's own, like a 400 before a 404); the key's count after the pet
 * and its version, so that a key at its limit still learns of a missing pet or a stale ETag.
 */
function judgeReserve(order: ReserveOrder, input: ReservationWriteInput): Judged {
  const { entry, command } = input;
  const { petId } = order;
  const limits = order.limits ?? DEFAULT_HOLD_LIMITS;
  if (order.ttlMs > limits.ttlMs) {
    const refusal = { petId, ttlSeconds: order.ttlMs / 1_000, maxSeconds: limits.ttlMs / 1_000 };
    return { refusal: { code: 'hold_ttl_exceeded', ...refusal } };
  }
  if (entry === undefined) return { refusal: { code: 'pet_not_found', petId } };
  if (order.ifVersion !== undefined && !order.ifVersion.includes(entry.version)) {
    return { refusal: { code: 'precondition_failed', petId, currentVersion: entry.version } };
  }
  if (input.keyHolds >= limits.perKey) {
    return { refusal: { code: 'hold_limit_exceeded', petId, keyId: command.actor, limit: limits.perKey } };
  }
  const available = availableOf(entry.item);
  if (order.quantity > available) {
    return { refusal: { code: 'insufficient_stock', petId: order.petId, quantity: order.quantity, available } };
  }
  const { reserved } = entry.item;
  const level = levelOf(entry.item);
  return {
    reservation: {
      id: input.newId,
      petId: order.petId,
      quantity: order.quantity,
      state: 'held',
      createdAtMs: command.atMs,
      expiresAtMs: command.atMs + order.ttlMs,
    },
    entry: { level, reserved: toQuantity(reserved + order.quantity), version: entry.version + 1 },
  };
}

/**
 * A commit takes a held reservation's quantity from the stock on hand, with one change recorded; a
 * release gives it back. Repeating either answers the reservation as it stands, writing nothing; a
 * release of an expired one too (its stock is already free). A commit of a released or expired one, or
 * a release of a committed one, is refused with the state in the code.
 */
function judgeSettle(order: SettleOrder, input: ReservationWriteInput): Judged {
  const { reservation, command } = input;
  if (reservation === undefined)
    return { refusal: { code: 'reservation_not_found', reservationId: order.reservationId } };
  const state = stateAt(reservation, command.atMs);
  const standing = state === reservation.state ? reservation : { ...reservation, state };
  if (state !== 'held') {
    const settled = order.kind === 'commit' ? state === 'committed' : state !== 'committed';
    if (settled) return { reservation: standing };
    return { refusal: { code: `reservation_${state}`, reservationId: reservation.id } };
  }
  const entry = input.entry;
  if (entry === undefined) throw new Error(`reservation ${reservation.id} is held for a pet that is not stored`);
  const { reserved } = entry.item;
  const before = levelOf(entry.item);
  const left = toQuantity(reserved - reservation.quantity);
  const version = entry.version + 1;
  if (order.kind === 'release') {
    return { reservation: { ...reservation, state: 'released' }, entry: { level: before, reserved: left, version } };
  }
  const after = withStock(before, toQuantity(before.quantity - reservation.quantity));
  return {
    reservation: { ...reservation, state: 'committed' },
    entry: { level: after, reserved: left, version },
    change: {
      id: input.changeId,
      kind: 'reservation_commit',
      before,
      after,
      actor: command.actor,
      atMs: command.atMs,
      reason: null,
    },
  };
}

/**
 * The one decision of a reservation write, for every store: a claim answers first (see `claimAnswer`);
 * then a reserve is judged against what is available, a commit or a release against the reservation's
 * state at the command's time. With a claim, the outcome is stored for its retries.
 */
export function decideReservationWrite(input: ReservationWriteInput): ReservationDecision {
  const { command } = input;
  const claim = command.idempotency;
  const none = { reservation: undefined, entry: undefined, change: undefined, claimed: undefined };
  if (claim !== undefined && input.claim !== undefined) {
    const answer = claimAnswer(input.claim, claim, command.atMs);
    if (answer !== undefined) {
      if ('error' in answer) return { ...none, result: fail(answer.error) };
      if (answer.outcome.kind !== 'reservation' && answer.outcome.kind !== 'reservation_refused') {
        throw new Error('an Idempotency-Key holds the outcome of another kind of write than its request');
      }
      return { ...none, result: reservationResultOf(answer.outcome, true) };
    }
  }
  const order = command.reservation;
  const judged = order.kind === 'reserve' ? judgeReserve(order, input) : judgeSettle(order, input);
  const outcome: ReservationOutcome =
    'refusal' in judged
      ? { kind: 'reservation_refused', refusal: judged.refusal }
      : { kind: 'reservation', reservation: judged.reservation };
  const written = 'refusal' in judged || judged.entry === undefined ? undefined : judged;
  return {
    result: reservationResultOf(outcome, false),
    reservation: written?.reservation,
    entry: written?.entry,
    change: written?.change,
    claimed: claim === undefined ? undefined : { claim, outcome },
  };
}
