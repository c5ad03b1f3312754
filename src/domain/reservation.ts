import type { PetId } from './pet-id.js';
import type { Quantity } from './quantity.js';

/**
 * Where a reservation stands: `held` sets its quantity aside until it expires; `committed` took it from
 * the stock on hand; `released` gave it back; `expired` lapsed while held.
 */
export type ReservationState = 'held' | 'committed' | 'released' | 'expired';

export const RESERVATION_STATES: readonly ReservationState[] = ['held', 'committed', 'released', 'expired'];

const STATES: ReadonlySet<string> = new Set(RESERVATION_STATES);

/** A stored state as a ReservationState; anything else is a corrupt record, which throws rather than leaks. */
export function reservationStateOf(value: string): ReservationState {
  if (!STATES.has(value)) throw new RangeError(`${value} is not a reservation state`);
  return value as ReservationState;
}

/** Stock of one pet set aside for a checkout, until it is committed, released, or its time is up. */
export interface Reservation {
  /** `res_` and 32 hexadecimal digits (see `isReservationId`). */
  readonly id: string;
  readonly petId: PetId;
  /** 1 or more. */
  readonly quantity: Quantity;
  /** As stored; a held one past `expiresAtMs` has expired whether stored so or not (see `stateAt`). */
  readonly state: ReservationState;
  /** Unix milliseconds. */
  readonly createdAtMs: number;
  /** Unix milliseconds: from then on a held reservation sets nothing aside. */
  readonly expiresAtMs: number;
}

/** A reservation with the id of the API key that made it: whose holds it counts among (see HoldLimits). */
export interface KeyedReservation extends Reservation {
  readonly keyId: string;
}

/**
 * How much one key may hold, so that no key can set all the stock aside for long: at most `perKey`
 * reservations held at once, each for at most `ttlMs`.
 */
export interface HoldLimits {
  readonly perKey: number;
  readonly ttlMs: number;
}

/** How many reservations a key may hold at once unless configured. */
export const DEFAULT_MAX_HOLDS_PER_KEY = 1_000;

/** How long a reservation may hold unless configured: an hour (TTL_MAX_SECONDS stays the ceiling). */
export const DEFAULT_MAX_HOLD_TTL_SECONDS = 3_600;

export const DEFAULT_HOLD_LIMITS: HoldLimits = {
  perKey: DEFAULT_MAX_HOLDS_PER_KEY,
  ttlMs: DEFAULT_MAX_HOLD_TTL_SECONDS * 1_000,
};

/** How long a reservation holds unless asked: 15 minutes. */
export const DEFAULT_TTL_SECONDS = 900;

/** The longest a reservation may hold: a day. */
export const TTL_MAX_SECONDS = 86_400;

export const isTtlSeconds = (value: number): boolean =>
  Number.isInteger(value) && value >= 1 && value <= TTL_MAX_SECONDS;

const RESERVATION_ID = /^res_[0-9a-f]{32}$/;

/** Whether `text` can name a reservation; anything else names none (a 404, as an unknown id). */
export const isReservationId = (text: string): boolean => RESERVATION_ID.test(text);

/**
 * Whether a hold that expires at `expiresAtMs` has lapsed by `nowMs`: from its expiry instant itself on,
 * it sets nothing aside. The one boundary of every expiry; the SQL stores write it with
 * src/adapters/sql/hold-expiry.ts, which a test holds to this.
 */
export const hasLapsed = (expiresAtMs: number, nowMs: number): boolean => expiresAtMs <= nowMs;

/**
 * A held reservation stops counting the moment it expires, whether or not anything has touched it
 * since: its state at `nowMs` is `expired` from `expiresAtMs` on, while the store may still hold it as
 * `held` until a write of its pet or the purge marks it so.
 */
export const stateAt = (reservation: Reservation, nowMs: number): ReservationState =>
  reservation.state === 'held' && hasLapsed(reservation.expiresAtMs, nowMs) ? 'expired' : reservation.state;

/** The reservation as it stands at `nowMs`. */
export const reservationAt = (reservation: Reservation, nowMs: number): Reservation => {
  const state = stateAt(reservation, nowMs);
  return state === reservation.state ? reservation : { ...reservation, state };
};

/** Whether a held reservation still sets its quantity aside at `nowMs`. */
export const holdsAt = (reservation: Reservation, nowMs: number): boolean => stateAt(reservation, nowMs) === 'held';

/**
 * What marking a pet's lapsed holds does (a write of the pet, or the purge): the holds stored as held
 * whose time is up become `expired`, and the pet's held count drops by their quantity. Each one marked
 * moves the entry's version by one, as its expiry already moved the version a reader was shown (see
 * InventoryRepository.get), so that marking changes nothing a reader can see.
 */
export interface Lapse<H extends Hold = Reservation> {
  readonly expired: readonly H[];
  readonly quantity: number;
}

/** What the lapse of a hold looks at. */
export type Hold = Pick<Reservation, 'id' | 'quantity' | 'state' | 'expiresAtMs'>;

/**
 * The lapse of `holds` (some of a pet's reservations stored as held: all of them, or only those whose
 * time is up, which is all a store needs to read) at `nowMs`.
 */
export function lapseOf<H extends Hold>(holds: readonly H[], nowMs: number): Lapse<H> {
  const expired = holds
    .filter((hold) => hold.state === 'held' && hasLapsed(hold.expiresAtMs, nowMs))
    .map((hold) => ({ ...hold, state: 'expired' as const }));
  return { expired, quantity: expired.reduce((sum, hold) => sum + hold.quantity, 0) };
}
