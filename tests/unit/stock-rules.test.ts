import { describe, expect, it } from 'vitest';
import { inventoryItem } from '../../src/domain/inventory-item.js';
import { petId } from '../../src/domain/pet-id.js';
import { QUANTITY_MAX, quantity } from '../../src/domain/quantity.js';
import { holdsAt, type Reservation, reservationAt, stateAt } from '../../src/domain/reservation.js';
import { isDelta, stockOrder } from '../../src/domain/stock-command.js';
import { decideStockWrite } from '../../src/domain/stock-decision.js';
import { eventsOf, STOCK_EVENT_TYPES } from '../../src/domain/stock-event.js';
import { aCommand, adjustBy, setTo } from '../../src/testing/index.js';

const entry = (id: bigint, q: number) => ({ item: inventoryItem(id, q, 'available', 0), version: 1 });

describe('a stock command', () => {
  it('names each pet once: two orders of one pet are a bug of the caller, which the core refuses to decide', () => {
    const command = aCommand([setTo(1n, 3), adjustBy(1n, 1)]);
    expect(() =>
      decideStockWrite({ command, entries: [entry(1n, 5), entry(1n, 5)], claim: undefined, changeIds: [1n, 2n] }),
    ).toThrow('a stock command names each pet once');
  });

  it('names one pet at least', () => {
    expect(() => decideStockWrite({ command: aCommand([]), entries: [], claim: undefined, changeIds: [] })).toThrow(
      'a stock command names one pet at least',
    );
  });

  it('of several pets, each once, is decided', () => {
    const command = aCommand([setTo(1n, 3), setTo(2n, 4)]);
    const decision = decideStockWrite({
      command,
      entries: [entry(1n, 5), entry(2n, 5)],
      claim: undefined,
      changeIds: [1n, 2n],
    });
    expect(decision.written.map((w) => w.change.after.quantity)).toEqual([3, 4]);
  });
});

describe('an adjustment delta', () => {
  it.each([1, -1, QUANTITY_MAX, -QUANTITY_MAX])(
    'may be %s: a whole number, not 0, at most QUANTITY_MAX either way',
    (delta) => {
      expect(isDelta(delta)).toBe(true);
      expect(stockOrder('adjust', delta, { petId: petId(1n) })).toMatchObject({ ok: true, value: { delta } });
    },
  );

  it.each([0, 1.5, QUANTITY_MAX + 1, -QUANTITY_MAX - 1, Number.NaN])('may not be %s', (delta) => {
    expect(isDelta(delta)).toBe(false);
    expect(stockOrder('adjust', delta, { petId: petId(1n) })).toMatchObject({ ok: false });
  });
});

describe('the low-stock event', () => {
  const all = { events: STOCK_EVENT_TYPES, lowStockThreshold: 5 };
  const change = (before: number, after: number) => ({
    before: { petId: petId(1n), quantity: quantity(before), status: 'available' as const },
    after: { petId: petId(1n), quantity: quantity(after), status: 'available' as const },
  });

  it('is raised by a change from above the threshold to the threshold itself', () => {
    expect(eventsOf(change(6, 5), all)).toEqual(['inventory.updated', 'inventory.low_stock']);
  });

  it('is not raised again by a change that starts at the threshold: the stock was low already', () => {
    expect(eventsOf(change(5, 4), all)).toEqual(['inventory.updated']);
  });

  it('is not raised by a change that stays above the threshold', () => {
    expect(eventsOf(change(7, 6), all)).toEqual(['inventory.updated']);
  });

  it('is never raised for an endpoint that set no threshold', () => {
    expect(eventsOf(change(6, 0), { events: STOCK_EVENT_TYPES, lowStockThreshold: null })).toEqual([
      'inventory.updated',
      'inventory.out_of_stock',
    ]);
  });
});

describe('the state of a reservation at a time', () => {
  const hold: Reservation = {
    id: `res_${'a'.repeat(32)}`,
    petId: petId(1n),
    quantity: quantity(2),
    state: 'held',
    createdAtMs: 1_000,
    expiresAtMs: 61_000,
  };

  it('is held until the millisecond before it expires', () => {
    expect(stateAt(hold, 60_999)).toBe('held');
    expect(holdsAt(hold, 60_999)).toBe(true);
    expect(reservationAt(hold, 60_999)).toBe(hold);
  });

  it('is expired from its expiry instant on, whether or not the store marked it', () => {
    expect(stateAt(hold, 61_000)).toBe('expired');
    expect(holdsAt(hold, 61_000)).toBe(false);
    expect(reservationAt(hold, 61_000)).toEqual({ ...hold, state: 'expired' });
  });

  it('is what was stored for a settled one, however late', () => {
    for (const state of ['committed', 'released', 'expired'] as const) {
      expect(stateAt({ ...hold, state }, 120_000)).toBe(state);
    }
  });
});
