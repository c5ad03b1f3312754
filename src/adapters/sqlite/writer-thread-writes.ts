import { stockLevel } from '../../domain/inventory-item.js';
import { PET_STATUSES, type PetStatus } from '../../domain/pet-status.js';
import { RESERVATION_STATES, type Reservation, type ReservationState } from '../../domain/reservation.js';
import {
  isReservationRefusal,
  type ReservationCommand,
  type ReservationOrder,
  type ReservationWriteResult,
  reservationResultOf,
} from '../../domain/reservation-outcome.js';
import { fail, ok } from '../../domain/result.js';
import { STOCK_CHANGE_KINDS, type StockChangeKind } from '../../domain/stock-change.js';
import { orderValueOf, type StockCommand, type StockOrder, stockOrder } from '../../domain/stock-command.js';
import {
  isStockRefusal,
  resultOf,
  type StockRefusal,
  type StockWriteResult,
  type WrittenEntry,
} from '../../domain/stock-outcome.js';
import {
  type Codec,
  claimCodec,
  type Fields,
  type Guard,
  isVersions,
  keyRefusal,
  keyRefusalReply,
  type ReplyCodec,
} from './writer-thread-fields.js';

/*
 * The two kinds of write the SQLite writer thread runs, as they cross (writer-thread-messages.ts declares
 * the requests): a stock command and its answer, a reservation write and its answer, each encoder beside
 * its parser. No kind of stock order is named here: an order crosses as the core's data and is made
 * again by the core's `stockOrder`.
 */

const isState: Guard<ReservationState> = (value): value is ReservationState =>
  RESERVATION_STATES.some((state) => state === value);
const isRefusal: Guard<StockRefusal> = (value) => typeof value === 'object' && value !== null && isStockRefusal(value);

/** A stock command: its actor, time and claim, then each order's five fields, whatever its kind. */
export const stockCommandCodec: Codec<StockCommand> = {
  write(command, out) {
    out.push(command.actor, command.atMs);
    claimCodec.write(command.idempotency, out);
    for (const order of command.orders) {
      out.push(order.kind, order.petId, orderValueOf(order), order.ifVersion, order.reason);
    }
  },
  message(name, id, command) {
    const order = command.orders[0];
    const claim = command.idempotency;
    if (command.orders.length !== 1 || order === undefined) {
      const out: unknown[] = [name, id];
      stockCommandCodec.write(command, out);
      return out;
    }
    // A one-pet command (nearly every one) in one literal, the fields `write` pushes in the same order.
    return [
      name,
      id,
      command.actor,
      command.atMs,
      claim?.scope,
      claim?.key,
      claim?.fingerprint,
      claim?.expiresAtMs,
      order.kind,
      order.petId,
      orderValueOf(order),
      order.ifVersion,
      order.reason,
    ];
  },
  read(fields) {
    const actor = fields.string('actor');
    const atMs = fields.integer('time');
    const idempotency = claimCodec.read(fields);
    // The first order makes the list as a literal of one (an empty array's first push allocates room for 17).
    const orders: StockOrder[] = fields.more ? [readOrder(fields, 0)] : [];
    while (fields.more) orders.push(readOrder(fields, orders.length));
    return { orders, actor, atMs, idempotency };
  },
};

/** Order `index` of a stock command, made again by the core. */
function readOrder(fields: Fields, index: number): StockOrder {
  const kind = fields.value('order kind');
  const petId = fields.petId('order pet');
  const value = fields.value('order value');
  const ifVersion = fields.read('order versions', 'an array of integers or undefined', isVersions);
  const reason = fields.optionalString('order reason');
  const order = stockOrder(kind, value, { petId, ifVersion, reason });
  if (!order.ok) throw fields.error(`has an order ${index} the core refuses: ${order.error}`);
  return order.value;
}

/**
 * A stock write's answer: `written` (the actor and time once, then each entry's ten fields, its kind
 * of change and statuses as their indexes in the domain's lists, rebuilt through the domain's checks), `refused` (each refusal, checked by the core's `isStockRefusal`, the
 * failure made again by its `resultOf`) or `key_refused`.
 */
export const stockResultCodec: ReplyCodec<StockWriteResult> = {
  write(id, result) {
    if (!result.ok) {
      const failure = result.error;
      if (!('refusals' in failure)) return keyRefusalReply(id, failure.code);
      return ['refused', id, failure.replayed, ...failure.refusals];
    }
    const { entries, replayed } = result.value;
    const first = entries[0];
    if (first === undefined) throw new Error('a write that was done wrote one entry at least');
    // The first entry is written in the same literal as the head: an array grown by `push` gets a new
    // backing store, larger than it needs, and a one-pet write (nearly every one) then allocates twice.
    const { change, version, reserved } = first;
    const { before, after } = change;
    const reply: unknown[] = [
      'written',
      id,
      replayed,
      change.actor,
      change.atMs,
      change.id,
      STOCK_CHANGE_KINDS.indexOf(change.kind),
      change.reason,
      after.petId,
      before.quantity,
      PET_STATUSES.indexOf(before.status),
      after.quantity,
      PET_STATUSES.indexOf(after.status),
      version,
      reserved,
    ];
    for (let i = 1; i < entries.length; i += 1) {
      const entry = entries[i] as WrittenEntry;
      const { before: was, after: now } = entry.change;
      reply.push(entry.change.id, STOCK_CHANGE_KINDS.indexOf(entry.change.kind), entry.change.reason, now.petId);
      reply.push(was.quantity, PET_STATUSES.indexOf(was.status), now.quantity, PET_STATUSES.indexOf(now.status));
      reply.push(entry.version, entry.reserved);
    }
    return reply;
  },
  read(tag, fields) {
    const key = keyRefusal(tag, fields);
    if (key !== undefined) return fail(key);
    if (tag !== 'refused' && tag !== 'written') throw fields.error('is not the answer of a stock write');
    const replayed = fields.boolean('replayed');
    if (tag === 'refused') {
      const refusals: StockRefusal[] = [];
      while (fields.more) refusals.push(fields.read(`refusal ${refusals.length}`, 'a refusal', isRefusal));
      if (refusals.length === 0) throw fields.error('names no refusal');
      return resultOf({ kind: 'refused', refusals }, replayed);
    }
    const actor = fields.string('actor');
    const atMs = fields.integer('time');
    if (!fields.more) throw fields.error('names no entry');
    const entries: WrittenEntry[] = [readEntry(fields, actor, atMs)];
    while (fields.more) entries.push(readEntry(fields, actor, atMs));
    return ok({ entries, replayed });
  },
};

/** One entry of a stock write's answer, its actor and time the answer's. */
function readEntry(fields: Fields, actor: string, atMs: number): WrittenEntry {
  const id = fields.bigint('change id');
  const kind = STOCK_CHANGE_KINDS[fields.read('change kind', 'a kind of change', isChangeKindIndex)] as StockChangeKind;
  const reason = fields.nullableString('reason');
  // stockLevel checks the pet id's range, and each quantity, again.
  const petId = fields.bigint('pet');
  const before = stockLevel(
    petId,
    fields.quantity('quantity before'),
    PET_STATUSES[fields.read('status before', 'a pet status', isPetStatusIndex)] as PetStatus,
  );
  const after = stockLevel(
    petId,
    fields.quantity('quantity after'),
    PET_STATUSES[fields.read('status after', 'a pet status', isPetStatusIndex)] as PetStatus,
  );
  const version = fields.integer('version');
  const reserved = fields.quantity('reserved');
  return { change: { id, kind, before, after, actor, atMs, reason }, version, reserved };
}

/** An index in `list`: the kind of a change and the statuses of an answer cross as one (a string is made again where it lands). */
const indexIn =
  (list: readonly unknown[]): Guard<number> =>
  (value): value is number =>
    typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < list.length;
const isPetStatusIndex = indexIn(PET_STATUSES);
const isChangeKindIndex = indexIn(STOCK_CHANGE_KINDS);

const reservationOrderCodec: Codec<ReservationOrder> = {
  write(order, out) {
    if (order.kind === 'reserve') {
      const { petId, quantity, ttlMs, limits, ifVersion } = order;
      out.push(order.kind, petId, quantity, ttlMs, limits?.perKey, limits?.ttlMs, ifVersion);
    } else out.push(order.kind, order.reservationId);
  },
  read(fields) {
    const kind = fields.read('reservation kind', 'reserve, commit or release', isReservationKind);
    if (kind !== 'reserve') return { kind, reservationId: fields.string('reservation id') };
    const petId = fields.petId('pet');
    const quantity = fields.quantity('quantity');
    const ttlMs = fields.integer('hold length');
    const perKey = fields.optionalInteger('holds a key may have');
    const limitMs = fields.optionalInteger('longest hold');
    const ifVersion = fields.read('versions', 'an array of integers or undefined', isVersions);
    if ((perKey === undefined) !== (limitMs === undefined)) throw fields.error('has half of the hold limits');
    const limits = perKey === undefined || limitMs === undefined ? undefined : { perKey, ttlMs: limitMs };
    return { kind, petId, quantity, ttlMs, limits, ifVersion };
  },
};

const isReservationKind: Guard<ReservationOrder['kind']> = (value) =>
  value === 'reserve' || value === 'commit' || value === 'release';

export const reservationCommandCodec: Codec<ReservationCommand> = {
  write(command, out) {
    out.push(command.actor, command.atMs);
    claimCodec.write(command.idempotency, out);
    reservationOrderCodec.write(command.reservation, out);
  },
  read(fields) {
    const actor = fields.string('actor');
    const atMs = fields.integer('time');
    const idempotency = claimCodec.read(fields);
    return { reservation: reservationOrderCodec.read(fields), actor, atMs, idempotency };
  },
};

/**
 * A reservation write's answer: `reservation` (its six fields), `reservation_refused` (the refusal,
 * checked by the core's `isReservationRefusal`, the failure made again by `reservationResultOf`) or
 * `key_refused`.
 */
export const reservationResultCodec: ReplyCodec<ReservationWriteResult> = {
  write(id, result) {
    if (!result.ok) {
      const failure = result.error;
      if (!('refusal' in failure)) return keyRefusalReply(id, failure.code);
      return ['reservation_refused', id, failure.replayed, failure.refusal];
    }
    const { reservation: r, replayed } = result.value;
    return ['reservation', id, replayed, r.id, r.petId, r.quantity, r.state, r.createdAtMs, r.expiresAtMs];
  },
  read(tag, fields) {
    const key = keyRefusal(tag, fields);
    if (key !== undefined) return fail(key);
    if (tag !== 'reservation_refused' && tag !== 'reservation') {
      throw fields.error('is not the answer of a reservation write');
    }
    const replayed = fields.boolean('replayed');
    if (tag === 'reservation_refused') {
      const refusal = fields.read('refusal', 'a refusal of a reservation write', isReservationRefusal);
      return reservationResultOf({ kind: 'reservation_refused', refusal }, replayed);
    }
    const reservation: Reservation = {
      id: fields.string('reservation id'),
      petId: fields.petId('pet'),
      quantity: fields.quantity('quantity'),
      state: fields.read('state', 'a reservation state', isState),
      createdAtMs: fields.integer('creation time'),
      expiresAtMs: fields.integer('expiry'),
    };
    return reservationResultOf({ kind: 'reservation', reservation }, replayed);
  },
};
