import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type InventoryItem, withStock } from '../../src/domain/inventory-item.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { aPet, INT64_MAX, INT64_MIN } from '../support/mothers.js';
import { drain, type MakeStorage, type StorageFixture } from './storage-fixture.js';

const AT = Date.UTC(2026, 5, 1, 12, 0, 0);

/** The InventoryRepository (and StockChangeLog) contract, run over every storage adapter. */
export function describeInventoryRepositoryContract(adapter: string, make: MakeStorage): void {
  describe(`InventoryRepository contract: ${adapter}`, () => {
    let store: StorageFixture;
    beforeEach(async () => {
      store = await make();
    });
    afterEach(async () => {
      await store.close();
    });

    describe('list', () => {
      it('lists nothing when no pet is tracked', async () => {
        const { items } = await drain(store.inventory.list());
        expect(items).toEqual([]);
      });

      it('lists every entry once, ordered by petId ascending, int64 extremes included', async () => {
        const ids = [42n, INT64_MAX, -7n, 0n, INT64_MIN, 9007199254740993n, 1n];
        const added = await store.pets.addAll(ids.map((id) => aPet(id)));
        expect(added).toEqual({ ok: true, value: ids.length });
        const { items } = await drain(store.inventory.list());
        expect(items.map((i) => i.petId)).toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
      });

      it('gives each entry its quantity and status', async () => {
        await store.pets.addAll([
          aPet(1, { quantity: quantity(0), status: 'sold' }),
          aPet(2, { quantity: quantity(2147483647), status: 'pending' }),
        ]);
        const { items } = await drain(store.inventory.list());
        expect(items).toEqual([
          { petId: 1n, quantity: 0, status: 'sold' },
          { petId: 2n, quantity: 2147483647, status: 'pending' },
        ]);
      });

      it('streams a long list in bounded chunks', async () => {
        await store.pets.addAll(Array.from({ length: 2_500 }, (_, i) => aPet(i + 1)));
        const { items, chunkSizes } = await drain(store.inventory.list());
        expect(items).toHaveLength(2_500);
        expect(chunkSizes.length).toBeGreaterThan(1);
        expect(Math.max(...chunkSizes)).toBeLessThanOrEqual(1_000);
        expect(items.map((i) => Number(i.petId))).toEqual(Array.from({ length: 2_500 }, (_, i) => i + 1));
      });

      it('pages with after and limit', async () => {
        await store.pets.addAll([5, 1, 9, 3, 7].map((id) => aPet(id)));
        const page = await drain(store.inventory.list({ after: petId(3n), limit: 2 }));
        expect(page.items.map((i) => i.petId)).toEqual([5n, 7n]);
        const rest = await drain(store.inventory.list({ after: petId(7n) }));
        expect(rest.items.map((i) => i.petId)).toEqual([9n]);
      });
    });

    describe('revision', () => {
      it('stays the same while nothing changes: reads, and an update of an unknown pet, leave it', async () => {
        await store.pets.addAll([aPet(1)]);
        const before = store.inventory.revision();
        await drain(store.inventory.list());
        await store.inventory.update(petId(404n), (c) => withStock(c, quantity(1)), 'k', AT);
        expect(await store.pets.addAll([aPet(1)])).toMatchObject({ ok: false });
        expect(store.inventory.revision()).toBe(before);
      });

      it('changes after an update', async () => {
        await store.pets.addAll([aPet(1, { quantity: quantity(3) })]);
        const before = store.inventory.revision();
        await store.inventory.update(petId(1n), (c) => withStock(c, quantity(4)), 'k', AT);
        const after = store.inventory.revision();
        expect(after).not.toBe(before);
        await store.inventory.update(petId(1n), (c) => withStock(c, quantity(5)), 'k', AT);
        expect(store.inventory.revision()).not.toBe(after);
      });

      it('changes after pets are added', async () => {
        const empty = store.inventory.revision();
        await store.pets.addAll([aPet(1)]);
        const one = store.inventory.revision();
        expect(one).not.toBe(empty);
        await store.pets.addAll([aPet(2), aPet(3)]);
        expect(store.inventory.revision()).not.toBe(one);
      });
    });

    describe('update', () => {
      it('applies the change, stores it and returns the entry before and after', async () => {
        await store.pets.addAll([aPet(10, { quantity: quantity(3), status: 'available' })]);
        const change = await store.inventory.update(petId(10n), (c) => withStock(c, quantity(0)), 'key_a', AT);
        expect(change).toEqual({
          before: { petId: 10n, quantity: 3, status: 'available' },
          after: { petId: 10n, quantity: 0, status: 'sold' },
          actor: 'key_a',
          atMs: AT,
        });
        const { items } = await drain(store.inventory.list());
        expect(items).toEqual([{ petId: 10n, quantity: 0, status: 'sold' }]);
        expect((await store.pets.get(petId(10n)))?.status).toBe('sold');
      });

      it('records every change, oldest first, with who made it and when', async () => {
        await store.pets.addAll([aPet(1, { quantity: quantity(1) }), aPet(2)]);
        await store.inventory.update(petId(1n), (c) => withStock(c, quantity(4)), 'key_a', AT);
        await store.inventory.update(petId(2n), (c) => withStock(c, quantity(9)), 'key_b', AT + 1);
        await store.inventory.update(petId(1n), (c) => withStock(c, quantity(6)), 'key_c', AT + 2);
        const history = await store.changes.history(petId(1n));
        expect(history.map((h) => [h.before.quantity, h.after.quantity, h.actor, h.atMs])).toEqual([
          [1, 4, 'key_a', AT],
          [4, 6, 'key_c', AT + 2],
        ]);
      });

      it('answers undefined for an unknown pet and records nothing', async () => {
        const change = await store.inventory.update(petId(404n), (c) => withStock(c, quantity(1)), 'key_a', AT);
        expect(change).toBeUndefined();
        expect(await store.changes.history(petId(404n))).toEqual([]);
      });

      it('keeps int64 extreme ids exact through an update', async () => {
        await store.pets.addAll([aPet(INT64_MAX), aPet(INT64_MIN)]);
        const max = await store.inventory.update(petId(INT64_MAX), (c) => withStock(c, quantity(7)), 'k', AT);
        const min = await store.inventory.update(petId(INT64_MIN), (c) => withStock(c, quantity(8)), 'k', AT);
        expect(max?.after).toEqual({ petId: INT64_MAX, quantity: 7, status: 'available' });
        expect(min?.after).toEqual({ petId: INT64_MIN, quantity: 8, status: 'available' });
        expect((await store.changes.history(petId(INT64_MAX))).map((h) => h.after.petId)).toEqual([INT64_MAX]);
      });

      it('loses no update when many run at once', async () => {
        await store.pets.addAll([aPet(1, { quantity: quantity(0), status: 'sold' })]);
        const increment = (c: InventoryItem): InventoryItem => withStock(c, quantity(c.quantity + 1));
        await Promise.all(Array.from({ length: 100 }, () => store.inventory.update(petId(1n), increment, 'k', AT)));
        const { items } = await drain(store.inventory.list());
        expect(items).toEqual([{ petId: 1n, quantity: 100, status: 'available' }]);
        expect(await store.changes.history(petId(1n))).toHaveLength(100);
      });

      it('writes nothing when the change throws', async () => {
        await store.pets.addAll([aPet(1, { quantity: quantity(3) })]);
        const boom = (): InventoryItem => {
          throw new Error('boom');
        };
        await expect(store.inventory.update(petId(1n), boom, 'k', AT)).rejects.toThrow('boom');
        const { items } = await drain(store.inventory.list());
        expect(items).toEqual([{ petId: 1n, quantity: 3, status: 'available' }]);
        expect(await store.changes.history(petId(1n))).toEqual([]);
      });
    });
  });
}
