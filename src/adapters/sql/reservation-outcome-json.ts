import { petId as toPetId } from '../../domain/pet-id.js';
import { quantity as toQuantity } from '../../domain/quantity.js';
import { type Reservation, reservationStateOf } from '../../domain/reservation.js';
import type { ReservationOutcome, ReservationRefusal } from '../../domain/reservation-outcome.js';

/*
 * The outcome of a keyed reservation write as the SQL stores keep it, beside the stock writes' outcomes
 * in one column (see stock-outcome-json.ts). Pet ids travel as decimal strings, never rounded.
 */

interface ReservationJson {
  readonly id: string;
  readonly petId: string;
  readonly quantity: number;
  readonly state: string;
  readonly createdAtMs: number;
  readonly expiresAtMs: number;
}

type RefusalJson = { readonly code: string; readonly petId?: string } & Readonly<Record<string, string | number>>;

export type ReservationOutcomeJson =
  | { readonly kind: 'reservation'; readonly reservation: ReservationJson }
  | { readonly kind: 'reservation_refused'; readonly refusal: RefusalJson };

export const reservationJson = (r: Reservation): ReservationJson => ({ ...r, petId: String(r.petId) });

/** A reservation read back, through the domain's checks; a corrupt one throws. */
export const reservationOfJson = (json: ReservationJson): Reservation => ({
  id: json.id,
  petId: toPetId(BigInt(json.petId)),
  quantity: toQuantity(json.quantity),
  state: reservationStateOf(json.state),
  createdAtMs: json.createdAtMs,
  expiresAtMs: json.expiresAtMs,
});

export const encodeReservationOutcome = (outcome: ReservationOutcome): ReservationOutcomeJson =>
  outcome.kind === 'reservation'
    ? { kind: 'reservation', reservation: reservationJson(outcome.reservation) }
    : {
        kind: 'reservation_refused',
        refusal: {
          ...outcome.refusal,
          ...('petId' in outcome.refusal ? { petId: String(outcome.refusal.petId) } : {}),
        } as RefusalJson,
      };

export function decodeReservationOutcome(json: ReservationOutcomeJson): ReservationOutcome {
  if (json.kind === 'reservation') return { kind: 'reservation', reservation: reservationOfJson(json.reservation) };
  const { petId, ...rest } = json.refusal;
  // The codes and fields are the domain's own, written by encodeReservationOutcome.
  const refusal = (petId === undefined ? rest : { ...rest, petId: toPetId(BigInt(petId)) }) as ReservationRefusal;
  return { kind: 'reservation_refused', refusal };
}
