import { describe, expect, it } from 'vitest';
import type { OperationName, ReplyOf, RequestOf } from '../../src/adapters/sqlite/store-operations.js';
import {
  readAnswers,
  readReply,
  replyId,
  replyMessage,
  requestMessage,
  serveRequest,
  type Wire,
  WriterProtocolError,
} from '../../src/adapters/sqlite/writer-thread-messages.js';
import { stockLevel } from '../../src/domain/inventory-item.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import type { Reservation } from '../../src/domain/reservation.js';
import { type ReservationRefusal, reservationResultOf } from '../../src/domain/reservation-outcome.js';
import { fail, ok } from '../../src/domain/result.js';
import type { StockCommand } from '../../src/domain/stock-command.js';
import { KEY_IN_USE, KEY_REUSED, resultOf, type StockRefusal } from '../../src/domain/stock-outcome.js';
import { INT64_MAX, INT64_MIN } from '../../src/testing/index.js';

/** What the writer thread's side makes of a message: the request its handler was given, or the error. */
type Served = { readonly kind: string; readonly id: number; readonly request?: unknown; readonly error?: Error };

/** The message crosses as it would between threads (structured clone), then is served. */
function serve(message: Wire): Served {
  let served: Served | undefined;
  serveRequest(structuredClone(message), {
    serve: (kind, id, request) => {
      served = { kind, id, request };
    },
    close: () => {
      served = { kind: 'close', id: 0 };
    },
    unreadable: (id, error) => {
      served = { kind: 'unreadable', id, error };
    },
  });
  if (served === undefined) throw new Error('the request was not served');
  return served;
}

const roundTrip = <K extends OperationName>(kind: K, request: RequestOf<K>): Served =>
  serve(requestMessage(kind, 7, request));

const answer = <K extends OperationName>(kind: K, reply: ReplyOf<K>) =>
  readReply(kind, structuredClone(replyMessage(kind, 7, reply)));

const CLAIM = { scope: 'key_a', key: 'k-1', fingerprint: 'PATCH /v1/inventory/1 {}', expiresAtMs: 86_400_000 };

const A_COMMAND: StockCommand = {
  orders: [
    { kind: 'set', petId: petId(INT64_MAX), quantity: quantity(2_147_483_647), ifVersion: [3, 4], reason: 'stocktake' },
    { kind: 'adjust', petId: petId(INT64_MIN), delta: -5 },
  ],
  actor: 'key_a',
  atMs: 1_700_000_000_000,
  idempotency: CLAIM,
};

const A_RESERVATION: Reservation = {
  id: `res_${'a'.repeat(32)}`,
  petId: petId(INT64_MAX),
  quantity: quantity(2),
  state: 'held',
  createdAtMs: 1_000,
  expiresAtMs: 901_000,
};

/** The error a request that does not parse is answered with. */
function refusedRequest(message: Wire): Error {
  const served = serve(message);
  expect(served.kind).toBe('unreadable');
  expect(served.error).toBeInstanceOf(WriterProtocolError);
  return served.error as Error;
}

/** The error a reply that does not parse fails its request with. */
function refusedReply(kind: OperationName, reply: Wire): Error {
  const read = readReply(kind, reply);
  if (read.ok) throw new Error(`the reply was read: ${String(read.value)}`);
  expect(read.error).toBeInstanceOf(WriterProtocolError);
  return read.error;
}

describe('the writer thread protocol: every request crosses and is read back as it was sent', () => {
  it('carries a stock command of every kind of order, its claim, versions, reasons and int64 ids exactly', () => {
    expect(roundTrip('writeStock', A_COMMAND)).toEqual({ kind: 'writeStock', id: 7, request: A_COMMAND });
    const unkeyed = { ...A_COMMAND, idempotency: undefined };
    expect(roundTrip('writeStock', unkeyed)).toEqual({ kind: 'writeStock', id: 7, request: unkeyed });
  });

  it('carries a reservation write of each kind: reserve (with and without limits), commit, release', () => {
    const reserve = {
      reservation: {
        kind: 'reserve' as const,
        petId: petId(1n),
        quantity: quantity(3),
        ttlMs: 60_000,
        limits: { perKey: 10, ttlMs: 3_600_000 },
        ifVersion: [2],
      },
      actor: 'key_a',
      atMs: 5,
      idempotency: CLAIM,
    };
    expect(roundTrip('writeReservation', reserve).request).toEqual(reserve);
    const plain = {
      ...reserve,
      reservation: { kind: 'reserve' as const, petId: petId(1n), quantity: quantity(1), ttlMs: 9 },
    };
    expect(roundTrip('writeReservation', plain).request).toEqual(plain);
    for (const kind of ['commit', 'release'] as const) {
      const settle = { reservation: { kind, reservationId: A_RESERVATION.id }, actor: 'key_b', atMs: 6 };
      expect(roundTrip('writeReservation', settle)).toEqual({ kind: 'writeReservation', id: 7, request: settle });
    }
  });

  it('carries the sweep, the lapse of a pet, and close', () => {
    expect(roundTrip('forgetExpiredOutcomes', { nowMs: 10, max: 1_000 })).toEqual({
      kind: 'forgetExpiredOutcomes',
      id: 7,
      request: { nowMs: 10, max: 1_000 },
    });
    const pet = petId(INT64_MAX);
    expect(roundTrip('markLapse', { petId: pet, nowMs: 11 })).toEqual({
      kind: 'markLapse',
      id: 7,
      request: { petId: pet, nowMs: 11 },
    });
    expect(serve(['close']).kind).toBe('close');
  });
});

describe('the writer thread protocol: every answer crosses back and is read as it was sent', () => {
  it('reads back a stock write that was done, every entry rebuilt through the domain', () => {
    const written = ok({
      entries: [
        {
          change: {
            id: INT64_MAX,
            kind: 'adjust' as const,
            before: stockLevel(INT64_MIN, 3, 'available'),
            after: stockLevel(INT64_MIN, 0, 'sold'),
            actor: 'key_a',
            atMs: 1_000,
            reason: 'sold at the fair',
          },
          version: 4,
          reserved: quantity(0),
        },
        {
          change: {
            id: 1n,
            kind: 'set' as const,
            before: stockLevel(2n, 0, 'pending'),
            after: stockLevel(2n, 9, 'pending'),
            actor: 'key_a',
            atMs: 1_000,
            reason: null,
          },
          version: 2,
          reserved: quantity(1),
        },
      ],
      replayed: true,
    });
    expect(answer('writeStock', written)).toEqual(ok(written));
  });

  it('reads back refused orders and refused keys as the core makes them, messages included', () => {
    const refusals: StockRefusal[] = [
      { index: 0, code: 'precondition_failed', petId: petId(1n), currentVersion: 3 },
      { index: 1, code: 'insufficient_stock', petId: petId(2n), quantity: 1, delta: -4, reserved: 1 },
      { index: 2, code: 'quantity_below_reserved', petId: petId(3n), quantity: 0, reserved: 2 },
    ];
    const refused = resultOf({ kind: 'refused', refusals }, false);
    expect(answer('writeStock', refused)).toEqual(ok(refused));
    expect(answer('writeStock', fail(KEY_REUSED))).toEqual(ok(fail(KEY_REUSED)));
    expect(answer('writeStock', fail(KEY_IN_USE))).toEqual(ok(fail(KEY_IN_USE)));
  });

  it('reads back a reservation, and each kind of refusal of one', () => {
    const done = reservationResultOf({ kind: 'reservation', reservation: A_RESERVATION }, false);
    expect(answer('writeReservation', done)).toEqual(ok(done));
    const refusals: ReservationRefusal[] = [
      { code: 'insufficient_stock', petId: petId(1n), quantity: 5, available: 2 },
      { code: 'hold_limit_exceeded', petId: petId(1n), keyId: 'key_a', limit: 10 },
      { code: 'hold_ttl_exceeded', petId: petId(1n), ttlSeconds: 7_200, maxSeconds: 3_600 },
      { code: 'reservation_expired', reservationId: A_RESERVATION.id },
    ];
    for (const refusal of refusals) {
      const refused = reservationResultOf({ kind: 'reservation_refused', refusal }, true);
      expect(answer('writeReservation', refused)).toEqual(ok(refused));
    }
    expect(answer('writeReservation', fail(KEY_IN_USE))).toEqual(ok(fail(KEY_IN_USE)));
  });

  it('reads back counts, and an error with its name, code and the writer thread’s stack', () => {
    expect(answer('forgetExpiredOutcomes', 12)).toEqual(ok(12));
    const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    const read = readReply(
      'writeStock',
      structuredClone(['error', 7, busy.name, busy.message, 'SQLITE_BUSY', busy.stack]),
    );
    expect(read).toMatchObject({
      ok: false,
      error: { message: 'database is locked', code: 'SQLITE_BUSY', stack: busy.stack },
    });
    expect(readAnswers(structuredClone({ replies: [['count', 7, 1]], committed: [1] }))).toEqual({
      replies: [['count', 7, 1]],
      committed: [1],
    });
  });
});

describe('the writer thread protocol: a request that does not parse is an error naming what is wrong', () => {
  const message = (): unknown[] => [...requestMessage('writeStock', 7, A_COMMAND)];

  it('answers its id with the field at fault: a pet id that is not a bigint', () => {
    const wrong = message();
    wrong[9] = 1;
    expect(refusedRequest(wrong).message).toBe(
      'the writeStock request 7 has 1 as its order pet (field 9), not a pet id',
    );
  });

  it('refuses an order of a kind the core does not know, and a value its kind does not take', () => {
    const unknown = message();
    unknown[8] = 'teleport';
    expect(refusedRequest(unknown).message).toContain('teleport is not a kind of stock order');
    const negative = message();
    negative[10] = -1;
    expect(refusedRequest(negative).message).toContain('-1 is not a quantity a set order takes');
  });

  it('refuses a message a field short, or a field long', () => {
    expect(refusedRequest(message().slice(0, -1)).message).toBe(
      'the writeStock request 7 ends before its order reason (field 17)',
    );
    expect(refusedRequest(['forgetExpiredOutcomes', 7, 1, 2, 3]).message).toBe(
      'the forgetExpiredOutcomes request 7 has fields past its last, from field 4',
    );
  });

  it('refuses half a claim, a request of no known operation, and throws on a request without an id', () => {
    const half = message();
    half[5] = undefined;
    expect(refusedRequest(half).message).toBe(
      'the writeStock request 7 has some of a claim’s fields and not the others',
    );
    expect(refusedRequest(['teleport', 7]).message).toBe('the request 7 is of no operation known: "teleport"');
    expect(() => serve(['writeStock', '7'])).toThrow(WriterProtocolError);
    expect(() => serve(['writeStock', '7'])).toThrow('a request has "7" as its id, not an integer');
  });
});

describe('the writer thread protocol: an answer that does not parse fails its request, naming what is wrong', () => {
  const written = (): unknown[] => [
    ...replyMessage(
      'writeStock',
      7,
      ok({
        entries: [
          {
            change: {
              id: 1n,
              kind: 'set',
              before: stockLevel(1n, 0, 'sold'),
              after: stockLevel(1n, 1, 'available'),
              actor: 'key_a',
              atMs: 1,
              reason: null,
            },
            version: 2,
            reserved: quantity(0),
          },
        ],
        replayed: false,
      }),
    ),
  ];

  it('names the field of a written entry at fault', () => {
    const lost = written();
    lost[12] = 'lost';
    expect(refusedReply('writeStock', lost).message).toBe(
      'the reply to the writeStock request 7 has "lost" as its status after (field 12), not a pet status',
    );
    expect(refusedReply('writeStock', written().slice(0, -1)).message).toBe(
      'the reply to the writeStock request 7 ends before its reserved (field 14)',
    );
  });

  it('refuses a refusal the core would not make, and an answer of another kind of request', () => {
    const refusal = { index: 0, code: 'precondition_failed', petId: 1n };
    expect(refusedReply('writeStock', ['refused', 7, false, refusal]).message).toBe(
      'the reply to the writeStock request 7 has an object as its refusal 0 (field 3), not a refusal',
    );
    expect(refusedReply('writeStock', ['count', 7, 3]).message).toBe(
      'the reply to the writeStock request 7 is not the answer of a stock write',
    );
    expect(refusedReply('forgetExpiredOutcomes', ['written', 7, false]).message).toBe(
      'the reply to the forgetExpiredOutcomes request 7 is not a count',
    );
    expect(refusedReply('writeStock', ['key_refused', 7, 'pet_not_found']).message).toBe(
      'the reply to the writeStock request 7 names "pet_not_found", not a code of a refused key',
    );
  });

  it('refuses a reservation in a state the core does not know, and a refusal without its reservation', () => {
    const done = [
      ...replyMessage(
        'writeReservation',
        7,
        reservationResultOf({ kind: 'reservation', reservation: A_RESERVATION }, false),
      ),
    ];
    done[6] = 'gone';
    expect(refusedReply('writeReservation', done).message).toBe(
      'the reply to the writeReservation request 7 has "gone" as its state (field 6), not a reservation state',
    );
    expect(
      refusedReply('writeReservation', ['reservation_refused', 7, false, { code: 'reservation_expired' }]).message,
    ).toContain('not a refusal of a reservation write');
  });

  it('throws on answers it cannot match to a request: no id, or not a list of replies', () => {
    expect(() => replyId(['count'])).toThrow('a reply has undefined as its id, not an integer');
    expect(() => readAnswers({ replies: [1], committed: [] })).toThrow(WriterProtocolError);
    expect(() => readAnswers(null)).toThrow('the writer thread posted null, not its answers');
  });
});
