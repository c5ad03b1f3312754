import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { petId } from '../../src/domain/pet-id.js';
import { anOrder, aPet, INT64_MAX } from '../support/mothers.js';
import type { MakeStorage, StorageFixture } from './storage-fixture.js';

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
  });
}
