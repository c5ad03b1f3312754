import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../src/adapters/memory/memory-adapters.js';
import type { InventoryRepository } from '../../src/application/ports/inventory-repository.js';
import { StockCommandRunner } from '../../src/application/stock-command-runner.js';
import { GetReservation } from '../../src/application/use-cases/get-reservation.js';
import { HOLDS_PAGE, ListHolds } from '../../src/application/use-cases/list-holds.js';
import { ReleaseHolds } from '../../src/application/use-cases/release-holds.js';
import {
  type ReserveResult,
  ReserveStock,
  type ReserveStockInput,
} from '../../src/application/use-cases/reserve-stock.js';
import { CommitReservation, ReleaseReservation } from '../../src/application/use-cases/settle-reservation.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { DEFAULT_HOLD_LIMITS, type KeyedReservation, type Reservation } from '../../src/domain/reservation.js';
import type { ReservationWriteResult } from '../../src/domain/reservation-outcome.js';
import { aPet, ManualClock } from '../../src/testing/index.js';
import { delegateInventory } from '../support/delegate-inventory.js';

const MINUTE = 60_000;

const held = (result: ReservationWriteResult | ReserveResult): Reservation => {
  if (!result.ok) throw new Error(`the reservation was refused: ${result.error.code}`);
  return result.value.reservation;
};

describe('the reservation use cases over the in-memory store', () => {
  let clock: ManualClock;
  let storage: ReturnType<typeof createMemoryStorage>;
  let writes: StockCommandRunner;
  beforeEach(async () => {
    clock = new ManualClock();
    storage = createMemoryStorage(clock);
    writes = new StockCommandRunner(storage.inventory, clock);
    await storage.pets.addAll([aPet(1, { quantity: quantity(10) }), aPet(2, { quantity: quantity(10) })]);
  });
  const reserve = (input: Partial<ReserveStockInput> = {}, limits = DEFAULT_HOLD_LIMITS) =>
    new ReserveStock(writes, limits).execute({ petId: petId(1n), quantity: quantity(1), actor: 'key_a', ...input });
  const commit = (reservationId: string) => new CommitReservation(writes).execute({ reservationId, actor: 'key_b' });
  const release = (reservationId: string) => new ReleaseReservation(writes).execute({ reservationId, actor: 'key_b' });
  const available = async (id: bigint) => {
    const entry = await storage.inventory.get(petId(id));
    return entry === undefined ? undefined : entry.item.quantity - entry.item.reserved;
  };

  describe('ReserveStock', () => {
    it('holds the quantity asked of the pet asked, at the clock’s time, for 15 minutes unless asked', async () => {
      const hold = held(await reserve({ quantity: quantity(3) }));
      expect(hold).toMatchObject({ petId: 1n, quantity: 3, state: 'held', createdAtMs: clock.ms });
      expect(hold.expiresAtMs).toBe(clock.ms + 15 * MINUTE);
      expect(await available(1n)).toBe(7);
    });

    it('holds for the seconds asked', async () => {
      expect(held(await reserve({ ttlSeconds: 30 })).expiresAtMs).toBe(clock.ms + 30_000);
    });

    it('holds, unasked, for the limit’s length when that is shorter than 15 minutes', async () => {
      const limits = { ...DEFAULT_HOLD_LIMITS, ttlMs: 2 * MINUTE };
      expect(held(await reserve({}, limits)).expiresAtMs).toBe(clock.ms + 2 * MINUTE);
    });

    it('refuses a length past its limits, and a key past its number of holds', async () => {
      const limits = { perKey: 1, ttlMs: 2 * MINUTE };
      expect(await reserve({ ttlSeconds: 121 }, limits)).toMatchObject({
        ok: false,
        error: { code: 'hold_ttl_exceeded' },
      });
      held(await reserve({}, limits));
      expect(await reserve({}, limits)).toMatchObject({ ok: false, error: { code: 'hold_limit_exceeded' } });
      expect(await reserve({ actor: 'key_b' }, limits)).toMatchObject({ ok: true });
    });

    it('reserves only at a version If-Match names', async () => {
      expect(await reserve({ ifVersion: [7] })).toMatchObject({
        ok: false,
        error: { code: 'precondition_failed', refusal: { currentVersion: 1 } },
      });
      expect(await reserve({ ifVersion: [7, 1] })).toMatchObject({ ok: true });
    });

    it('answers a retry with the same idempotency key as the first time, holding nothing more', async () => {
      const idempotency = { key: 'checkout-1', fingerprint: 'f' };
      const first = held(await reserve({ idempotency }));
      expect(await reserve({ idempotency })).toEqual({ ok: true, value: { reservation: first, replayed: true } });
      expect(await available(1n)).toBe(9);
    });
  });

  describe('CommitReservation and ReleaseReservation', () => {
    it('commit takes the held quantity from the stock on hand, by any key', async () => {
      const hold = held(await reserve({ quantity: quantity(4) }));
      expect(await commit(hold.id)).toEqual({
        ok: true,
        value: { reservation: { ...hold, state: 'committed' }, replayed: false },
      });
      expect((await storage.inventory.get(petId(1n)))?.item).toMatchObject({ quantity: 6, reserved: 0 });
      expect((await storage.changes.history(petId(1n), { limit: 1 }))?.[0]).toMatchObject({ actor: 'key_b' });
    });

    it('release gives the held quantity back to what is available', async () => {
      const hold = held(await reserve({ quantity: quantity(4) }));
      expect(await release(hold.id)).toMatchObject({ ok: true, value: { reservation: { state: 'released' } } });
      expect(await available(1n)).toBe(10);
      expect(await commit(hold.id)).toMatchObject({ ok: false, error: { code: 'reservation_released' } });
    });

    it('answers a retry with the same idempotency key as the first time', async () => {
      const hold = held(await reserve());
      const idempotency = { key: 'settle-1', fingerprint: 'f' };
      const settle = () =>
        new CommitReservation(writes).execute({ reservationId: hold.id, actor: 'key_b', idempotency });
      await settle();
      expect(await settle()).toMatchObject({ ok: true, value: { replayed: true } });
      const again = () =>
        new ReleaseReservation(writes).execute({
          reservationId: hold.id,
          actor: 'key_b',
          idempotency: { ...idempotency, fingerprint: 'g' },
        });
      expect(await again()).toMatchObject({ ok: false, error: { code: 'idempotency_key_reused' } });
    });
  });

  describe('GetReservation', () => {
    const get = (reservationId: string) => new GetReservation(storage.inventory, clock).execute({ reservationId });

    it('answers a reservation as it stands now: a held one past its time has expired', async () => {
      const hold = held(await reserve({ ttlSeconds: 60 }));
      expect(await get(hold.id)).toEqual({ ok: true, value: hold });
      clock.advance(MINUTE);
      expect(await get(hold.id)).toEqual({ ok: true, value: { ...hold, state: 'expired' } });
    });

    it.each([`res_${'0'.repeat(32)}`, 'res_1', 'not-an-id'])('answers reservation_not_found for %s', async (id) => {
      expect(await get(id)).toEqual({
        ok: false,
        error: { code: 'reservation_not_found', message: `no reservation has id ${id}` },
      });
    });

    it('does not look up a text that cannot name a reservation', async () => {
      const looked: string[] = [];
      const inventory = delegateInventory(storage.inventory, {
        getReservation: async (id) => {
          looked.push(id);
          return storage.inventory.getReservation(id);
        },
      });
      await new GetReservation(inventory, clock).execute({ reservationId: 'res_xyz' });
      expect(looked).toEqual([]);
    });
  });

  describe('ListHolds', () => {
    const pages = async (
      input: Parameters<ListHolds['execute']>[0],
      inventory: InventoryRepository = storage.inventory,
    ) => {
      const found: (readonly KeyedReservation[])[] = [];
      for await (const page of new ListHolds(inventory, clock).execute(input)) found.push(page);
      return found;
    };

    it('lists the holds still held, soonest to lapse first, a page at a time', async () => {
      const ids = [];
      for (const ttlSeconds of [500, 100, 300, 200, 400]) ids.push(held(await reserve({ ttlSeconds })).id);
      const found = await pages({ pageSize: 2 });
      expect(found.map((page) => page.length)).toEqual([2, 2, 1]);
      expect(found.flat().map((hold) => hold.id)).toEqual([ids[1], ids[3], ids[2], ids[4], ids[0]]);
      clock.advance(250_000);
      expect((await pages({})).flat().map((hold) => hold.id)).toEqual([ids[2], ids[4], ids[0]]);
    });

    it('reads the pages at one time, and stops after a short page without reading another', async () => {
      for (let i = 0; i < 4; i += 1) held(await reserve());
      const queries: { nowMs: number; limit: number }[] = [];
      const inventory = delegateInventory(storage.inventory, {
        listHolds: (query) => {
          queries.push({ nowMs: query.nowMs, limit: query.limit });
          clock.advance(1);
          return storage.inventory.listHolds(query);
        },
      });
      const start = clock.ms;
      expect((await pages({ pageSize: 3 }, inventory)).map((page) => page.length)).toEqual([3, 1]);
      expect(queries).toEqual([
        { nowMs: start, limit: 3 },
        { nowMs: start, limit: 3 },
      ]);
    });

    it('yields no empty page when the last page is full', async () => {
      for (let i = 0; i < 4; i += 1) held(await reserve());
      expect((await pages({ pageSize: 2 })).map((page) => page.length)).toEqual([2, 2]);
      expect(await pages({ petId: petId(2n) })).toEqual([]);
    });

    it('lists the holds of one pet, or of one key, alone', async () => {
      const mine = held(await reserve({ petId: petId(2n) }));
      held(await reserve({ actor: 'key_b' }));
      expect((await pages({ petId: petId(2n) })).flat().map((hold) => hold.id)).toEqual([mine.id]);
      expect((await pages({ keyId: 'key_b' })).flat().map((hold) => hold.keyId)).toEqual(['key_b']);
    });

    it('reads a thousand holds a page unless asked', async () => {
      const limits: number[] = [];
      const inventory = delegateInventory(storage.inventory, {
        listHolds: (query) => {
          limits.push(query.limit);
          return storage.inventory.listHolds(query);
        },
      });
      await pages({}, inventory);
      expect(limits).toEqual([HOLDS_PAGE]);
      expect(HOLDS_PAGE).toBe(1_000);
    });
  });

  describe('ReleaseHolds', () => {
    it('releases every hold of the key, a batch at a time, and counts them', async () => {
      for (let i = 0; i < 3; i += 1) held(await reserve());
      held(await reserve({ actor: 'key_b' }));
      expect(await new ReleaseHolds(storage.inventory, writes, clock).execute({ keyId: 'key_a', actor: 'admin' })).toBe(
        3,
      );
      expect(await available(1n)).toBe(9);
    });

    it('counts only the holds it released: one committed meanwhile is not counted', async () => {
      const first = held(await reserve());
      held(await reserve());
      let raced = false;
      const inventory = delegateInventory(storage.inventory, {
        listHolds: async (query) => {
          const holds = await storage.inventory.listHolds(query);
          // Another request commits a hold between the listing and its release.
          if (!raced) {
            raced = true;
            await commit(first.id);
          }
          return holds;
        },
      });
      const released = await new ReleaseHolds(inventory, new StockCommandRunner(inventory, clock), clock).execute({
        keyId: 'key_a',
        actor: 'admin',
      });
      expect(released).toBe(1);
      expect((await storage.inventory.get(petId(1n)))?.item).toMatchObject({ quantity: 9, reserved: 0 });
    });
  });
});
