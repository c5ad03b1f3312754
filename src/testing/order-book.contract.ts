import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { petId } from '../domain/pet-id.js';
import { anOrder, aPet, INT64_MAX } from './mothers.js';
import { failingStream, type MakeStorage, pausedStream, type StorageFixture, streamOf } from './storage-fixture.js';

/** The OrderBook contract, run over every storage adapter. */
export function describeOrderBookContract(adapter: string, make: MakeStorage): void {
  describe(`OrderBook contract: ${adapter}`, () => {
    let store: StorageFixture;
    beforeEach(async () => {
      store = await make();
      await store.pets.addAll([aPet(1), aPet(INT64_MAX)]);
    });
    afterEach(async () => {
      await store.close();
    });

    it('lists nothing before any order', async () => {
      expect(await store.orders.list()).toEqual([]);
    });

    it('lists orders by id ascending with every field kept', async () => {
      const orders = [
        anOrder(INT64_MAX, petId(INT64_MAX), { status: 'delivered', complete: true, quantity: 3 }),
        anOrder(2, petId(1n), { status: 'approved', shipDate: '2026-04-02T08:30:00.000Z' }),
      ];
      expect(await store.orders.addAll(orders)).toEqual({ ok: true, value: 2 });
      expect(await store.orders.list()).toEqual([orders[1], orders[0]]);
    });

    it('adds nothing when an order id repeats', async () => {
      await store.orders.addAll([anOrder(1, petId(1n))]);
      const result = await store.orders.addAll([anOrder(2, petId(1n)), anOrder(1, petId(1n))]);
      expect(result.ok ? 'ok' : result.error.code).toBe('duplicate_order');
      expect((await store.orders.list()).map((o) => o.id)).toEqual([1n]);
    });

    it('adds nothing when an order names a pet the store does not have', async () => {
      const result = await store.orders.addAll([anOrder(1, petId(1n)), anOrder(2, petId(99n))]);
      expect(result.ok ? 'ok' : result.error.code).toBe('pet_not_found');
      expect(await store.orders.list()).toEqual([]);
    });

    describe('addStream: every batch or none', () => {
      const ids = async (): Promise<bigint[]> => (await store.orders.list()).map((o) => o.id);

      it('adds the orders of every batch, ids exact, and counts them', async () => {
        const orders = [
          anOrder(INT64_MAX, petId(1n)),
          anOrder(9007199254740993n, petId(INT64_MAX)),
          anOrder(1, petId(1n)),
        ];
        expect(await store.orders.addStream(streamOf(orders.slice(0, 2), [], orders.slice(2)))).toEqual({
          ok: true,
          value: 3,
        });
        expect(await store.orders.list()).toEqual([orders[2], orders[1], orders[0]]);
      });

      it('adds nothing when an id is given twice, in different batches', async () => {
        const result = await store.orders.addStream(streamOf([anOrder(1, petId(1n))], [anOrder(1, petId(1n))]));
        expect(result).toEqual({ ok: false, error: { code: 'duplicate_order', message: 'order id 1 is given twice' } });
        expect(await ids()).toEqual([]);
      });

      it('adds nothing when the last batch holds an id already stored, or names a missing pet', async () => {
        await store.orders.addAll([anOrder(5, petId(1n))]);
        const stored = await store.orders.addStream(streamOf([anOrder(1, petId(1n))], [anOrder(5, petId(1n))]));
        expect(stored).toEqual({
          ok: false,
          error: { code: 'duplicate_order', message: 'an order with id 5 already exists' },
        });
        const orphan = await store.orders.addStream(streamOf([anOrder(1, petId(1n))], [anOrder(2, petId(99n))]));
        expect(orphan).toEqual({
          ok: false,
          error: { code: 'pet_not_found', message: 'order 2 names pet 99, which does not exist' },
        });
        expect(await ids()).toEqual([5n]);
      });

      it('adds nothing, and throws the error on, when the stream throws after its last batch', async () => {
        const bad = new Error('the file is cut short');
        await expect(store.orders.addStream(failingStream(bad, [anOrder(1, petId(1n))]))).rejects.toBe(bad);
        expect(await ids()).toEqual([]);
      });

      it('shows nothing of a stream before it ends', async () => {
        const stream = pausedStream([anOrder(1, petId(1n))], [anOrder(2, petId(1n))]);
        const adding = store.orders.addStream(stream.batches);
        await stream.firstTaken;
        expect(await ids()).toEqual([]);
        stream.release();
        expect(await adding).toEqual({ ok: true, value: 2 });
        expect(await ids()).toEqual([1n, 2n]);
      });
    });
  });
}
