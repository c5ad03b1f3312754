import { describe, expect, it } from 'vitest';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import {
  isReservationId,
  isTtlSeconds,
  lapseOf,
  RESERVATION_STATES,
  type Reservation,
  reservationStateOf,
  TTL_MAX_SECONDS,
} from '../../src/domain/reservation.js';
import {
  isReservationOutcome,
  isReservationRefusal,
  type ReservationRefusal,
  reservationRefusalMessage,
  reservationResultOf,
} from '../../src/domain/reservation-outcome.js';

const PET = petId(7n);
const RES = `res_${'0123456789abcdef'.repeat(2)}`;

describe("a reservation's values", () => {
  it(`hold for 1 to ${TTL_MAX_SECONDS} whole seconds`, () => {
    expect([1, TTL_MAX_SECONDS].map(isTtlSeconds)).toEqual([true, true]);
    expect([0, TTL_MAX_SECONDS + 1, 1.5, -1, Number.NaN].map(isTtlSeconds)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('are named by res_ and 32 lowercase hexadecimal digits', () => {
    expect(isReservationId(RES)).toBe(true);
    expect(isReservationId(RES.toUpperCase())).toBe(false);
    expect(isReservationId(`${RES}0`)).toBe(false);
    expect(isReservationId(RES.slice(0, -1))).toBe(false);
    expect(isReservationId(`x${RES}`)).toBe(false);
  });

  it.each(RESERVATION_STATES)('are read back in state %s as stored', (state) => {
    expect(reservationStateOf(state)).toBe(state);
  });

  it('of another state are a corrupt record', () => {
    expect(() => reservationStateOf('pending')).toThrow('pending is not a reservation state');
  });
});

describe('the lapse of holds', () => {
  const hold = (id: string, q: number, expiresAtMs: number, state: Reservation['state'] = 'held') => ({
    id,
    quantity: quantity(q),
    state,
    expiresAtMs,
  });

  it('expires the holds stored as held whose time is up, and sums their quantity', () => {
    const holds = [hold('a', 2, 100), hold('b', 3, 200), hold('c', 5, 201), hold('d', 7, 50, 'committed')];
    expect(lapseOf(holds, 200)).toEqual({
      expired: [
        { ...holds[0], state: 'expired' },
        { ...holds[1], state: 'expired' },
      ],
      quantity: 5,
    });
    expect(lapseOf(holds, 99)).toEqual({ expired: [], quantity: 0 });
  });
});

describe('what a person reads about a refused reservation write', () => {
  it.each<[string, ReservationRefusal]>([
    ['no pet has id 7', { code: 'pet_not_found', petId: PET }],
    [
      'the stock of pet 7 is at version 3, not the one If-Match names; read it again',
      { code: 'precondition_failed', petId: PET, currentVersion: 3 },
    ],
    [
      'pet 7 has 2 available: 5 cannot be reserved',
      { code: 'insufficient_stock', petId: PET, quantity: 5, available: 2 },
    ],
    [
      'key key_a holds 10 reservations, the most one key may hold: commit or release some first',
      { code: 'hold_limit_exceeded', petId: PET, keyId: 'key_a', limit: 10 },
    ],
    [
      'ttlSeconds 4000 is longer than the 3600 seconds a reservation may hold',
      { code: 'hold_ttl_exceeded', petId: PET, ttlSeconds: 4_000, maxSeconds: 3_600 },
    ],
    [`no reservation has id ${RES}`, { code: 'reservation_not_found', reservationId: RES }],
    [
      `reservation ${RES} is committed: its stock was taken, and cannot be released`,
      { code: 'reservation_committed', reservationId: RES },
    ],
    [
      `reservation ${RES} was released: it cannot be committed; reserve again`,
      { code: 'reservation_released', reservationId: RES },
    ],
    [
      `reservation ${RES} expired: it cannot be committed; reserve again`,
      { code: 'reservation_expired', reservationId: RES },
    ],
  ])('reads: %s', (message, refusal) => {
    expect(reservationRefusalMessage(refusal)).toBe(message);
    expect(reservationResultOf({ kind: 'reservation_refused', refusal }, true)).toEqual({
      ok: false,
      error: { code: refusal.code, message, refusal, replayed: true },
    });
    expect(isReservationRefusal(refusal)).toBe(true);
  });
});

describe('a stored reservation outcome read back', () => {
  it('is a reservation or a refusal of one, and nothing else', () => {
    expect(isReservationOutcome({ kind: 'reservation' })).toBe(true);
    expect(isReservationOutcome({ kind: 'reservation_refused' })).toBe(true);
    expect(isReservationOutcome({ kind: 'written' })).toBe(false);
  });

  it.each([
    null,
    'pet_not_found',
    { code: 1 },
    { code: 'hasOwnProperty', petId: PET },
    { code: 'pet_gone', petId: PET },
    { code: 'pet_not_found', petId: 7 },
    { code: 'reservation_expired', reservationId: 7 },
    { code: 'reservation_expired', petId: PET },
    { code: 'hold_limit_exceeded', petId: PET, limit: 10 },
    { code: 'hold_limit_exceeded', petId: PET, keyId: 'key_a', limit: '10' },
    { code: 'insufficient_stock', petId: PET, quantity: 5 },
    { code: 'hold_ttl_exceeded', petId: PET, ttlSeconds: 4_000, maxSeconds: 0.5 },
  ])('case %# is not a refusal as the core makes it', (value) => {
    expect(isReservationRefusal(value)).toBe(false);
  });
});
