import type { DomainError } from './errors.js';
import type { PetId } from './pet-id.js';
import type { Quantity } from './quantity.js';
import type { HoldLimits, Reservation } from './reservation.js';
import { fail, ok, type Result } from './result.js';
import type { IdempotencyClaim } from './stock-command.js';

/**
 * Hold `quantity` of a pet's available stock for `ttlMs`, within the key's `limits` (DEFAULT_HOLD_LIMITS
 * when absent); conditional on `ifVersion` (If-Match) when given.
 */
export interface ReserveOrder {
  readonly kind: 'reserve';
  readonly petId: PetId;
  readonly quantity: Quantity;
  readonly ttlMs: number;
  readonly limits?: HoldLimits;
  readonly ifVersion?: readonly number[];
}

/** Take a held reservation's quantity from the stock on hand (`commit`), or give it back (`release`). */
export interface SettleOrder {
  readonly kind: 'commit' | 'release';
  readonly reservationId: string;
}

export type ReservationOrder = ReserveOrder | SettleOrder;

/**
 * A write of a reservation as plain data, like a StockCommand: the order, as `actor`, at `atMs`, with an
 * optional idempotency claim. The store reads what it names, asks `decideReservationWrite` and applies
 * what it answers inside its own transaction.
 */
export interface ReservationCommand {
  readonly reservation: ReservationOrder;
  readonly actor: string;
  readonly atMs: number;
  readonly idempotency?: IdempotencyClaim;
}

/** Why a reservation write was refused. */
export type ReservationRefusal =
  | { readonly code: 'pet_not_found'; readonly petId: PetId }
  | { readonly code: 'precondition_failed'; readonly petId: PetId; readonly currentVersion: number }
  /** Asked for `quantity`, with only `available` not set aside. */
  | {
      readonly code: 'insufficient_stock';
      readonly petId: PetId;
      readonly quantity: number;
      readonly available: number;
    }
  /** The key already holds `limit` reservations, the most one key may hold at once. */
  | { readonly code: 'hold_limit_exceeded'; readonly petId: PetId; readonly keyId: string; readonly limit: number }
  /** Asked to hold for `ttlSeconds`, longer than the `maxSeconds` a reservation may hold. */
  | {
      readonly code: 'hold_ttl_exceeded';
      readonly petId: PetId;
      readonly ttlSeconds: number;
      readonly maxSeconds: number;
    }
  | { readonly code: 'reservation_not_found'; readonly reservationId: string }
  /** A commit of a released or expired reservation, or a release of a committed one. */
  | {
      readonly code: 'reservation_committed' | 'reservation_released' | 'reservation_expired';
      readonly reservationId: string;
    };

export type ReservationRefusalCode = ReservationRefusal['code'];

/** What a reservation write answered, as it is stored with an idempotency claim and replayed to a retry. */
export type ReservationOutcome =
  | { readonly kind: 'reservation'; readonly reservation: Reservation }
  | { readonly kind: 'reservation_refused'; readonly refusal: ReservationRefusal };

/** The reservation as the write left it (or found it, for a repeat), and whether this answer is a replay. */
export interface WrittenReservation {
  readonly reservation: Reservation;
  readonly replayed: boolean;
}

export type ReservationWriteFailure =
  | (DomainError<ReservationRefusalCode> & { readonly refusal: ReservationRefusal; readonly replayed: boolean })
  | DomainError<'idempotency_key_reused'>
  | DomainError<'idempotency_key_in_use'>;

/** The answer of every reservation write, from the store to the HTTP edge. */
export type ReservationWriteResult = Result<WrittenReservation, ReservationWriteFailure>;

/** What a person reads about a refusal. */
export function reservationRefusalMessage(refusal: ReservationRefusal): string {
  switch (refusal.code) {
    case 'pet_not_found':
      return `no pet has id ${refusal.petId}`;
    case 'precondition_failed':
      return `the stock of pet ${refusal.petId} is at version ${refusal.currentVersion}, not the one If-Match names; read it again`;
    case 'insufficient_stock':
      return `pet ${refusal.petId} has ${refusal.available} available: ${refusal.quantity} cannot be reserved`;
    case 'hold_limit_exceeded':
      return `key ${refusal.keyId} holds ${refusal.limit} reservations, the most one key may hold: commit or release some first`;
    case 'hold_ttl_exceeded':
      return `ttlSeconds ${refusal.ttlSeconds} is longer than the ${refusal.maxSeconds} seconds a reservation may hold`;
    case 'reservation_not_found':
      return `no reservation has id ${refusal.reservationId}`;
    case 'reservation_committed':
      return `reservation ${refusal.reservationId} is committed: its stock was taken, and cannot be released`;
    case 'reservation_released':
      return `reservation ${refusal.reservationId} was released: it cannot be committed; reserve again`;
    case 'reservation_expired':
      return `reservation ${refusal.reservationId} expired: it cannot be committed; reserve again`;
  }
}

/** The answer an outcome gives, first time or replayed. */
export function reservationResultOf(outcome: ReservationOutcome, replayed: boolean): ReservationWriteResult {
  if (outcome.kind === 'reservation') return ok({ reservation: outcome.reservation, replayed });
  const { refusal } = outcome;
  return fail({ code: refusal.code, message: reservationRefusalMessage(refusal), refusal, replayed });
}

export const isReservationOutcome = (outcome: { readonly kind: string }): outcome is ReservationOutcome =>
  outcome.kind === 'reservation' || outcome.kind === 'reservation_refused';

/** What each kind of refusal carries besides its code: the pet or the reservation, and its numbers. */
const RESERVATION_REFUSAL_DATA: Readonly<
  Record<ReservationRefusalCode, { readonly names: 'pet' | 'reservation'; readonly numbers: readonly string[] }>
> = {
  pet_not_found: { names: 'pet', numbers: [] },
  precondition_failed: { names: 'pet', numbers: ['currentVersion'] },
  insufficient_stock: { names: 'pet', numbers: ['quantity', 'available'] },
  hold_limit_exceeded: { names: 'pet', numbers: ['limit'] },
  hold_ttl_exceeded: { names: 'pet', numbers: ['ttlSeconds', 'maxSeconds'] },
  reservation_not_found: { names: 'reservation', numbers: [] },
  reservation_committed: { names: 'reservation', numbers: [] },
  reservation_released: { names: 'reservation', numbers: [] },
  reservation_expired: { names: 'reservation', numbers: [] },
};

/** Whether `value` is a refusal as the core makes it, every field it names of the right type. */
export function isReservationRefusal(value: unknown): value is ReservationRefusal {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Readonly<Record<string, unknown>>;
  const code = record.code;
  if (typeof code !== 'string' || !Object.hasOwn(RESERVATION_REFUSAL_DATA, code)) return false;
  const data = RESERVATION_REFUSAL_DATA[code as ReservationRefusalCode];
  const named = data.names === 'pet' ? typeof record.petId === 'bigint' : typeof record.reservationId === 'string';
  const keyed = code !== 'hold_limit_exceeded' || typeof record.keyId === 'string';
  return named && keyed && data.numbers.every((field) => Number.isSafeInteger(record[field]));
}
