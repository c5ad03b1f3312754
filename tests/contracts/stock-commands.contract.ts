import { describe, expect, it } from 'vitest';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import type { StockCommand, StockOrder } from '../../src/domain/stock-command.js';
import { aPet } from '../support/mothers.js';
import type { StorageFixture } from './storage-fixture.js';

const AT = Date.UTC(2026, 5, 1, 12, 0, 0);

/** A command of `orders` by key_a at AT. */
export const aCommand = (orders: readonly StockOrder[], overrides: Partial<StockCommand> = {}): StockCommand => ({
  orders,
  actor: 'key_a',
  atMs: AT,
  ...overrides,
});

export const adjustBy = (id: bigint, delta: number, reason?: string): StockOrder => ({
  kind: 'adjust',
  petId: petId(id),
  delta,
  ...(reason === undefined ? {} : { reason }),
});

export const setTo = (id: bigint, q: number): StockOrder => ({ kind: 'set', petId: petId(id), quantity: quantity(q) });

/**
 * The InventoryRepository contract's commands beyond setting one pet: adjustments, and commands of
 * several pets (batches). Called inside describeInventoryRepositoryContract, with its store.
 */
export function describeStockCommandsContract(store: () => StorageFixture): void {
  const history = async (id: bigint) => (await store().changes.history(petId(id), { limit: 1_000 })) ?? [];

  describe('adjust', () => {
    it('moves the stock by the delta, the status by the rule on the result, and records an adjust', async () => {
      await store().pets.addAll([
        aPet(1, { quantity: quantity(3) }),
        aPet(2, { quantity: quantity(0), status: 'sold' }),
      ]);
      const down = await store().inventory.write(aCommand([adjustBy(1n, -3, 'sold out at the fair')]));
      expect(down).toMatchObject({
        ok: true,
        value: { entries: [{ change: { kind: 'adjust', after: { quantity: 0, status: 'sold' } }, version: 2 }] },
      });
      await store().inventory.write(aCommand([adjustBy(2n, 2)]));
      expect(await store().inventory.get(petId(2n))).toMatchObject({ item: { quantity: 2, status: 'available' } });
      expect((await history(1n)).map((c) => [c.kind, c.reason])).toEqual([['adjust', 'sold out at the fair']]);
    });

    it('refuses a result below 0 with insufficient_stock, and above the maximum with quantity_limit_exceeded, writing nothing', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(2) }), aPet(2, { quantity: quantity(2_147_483_647) })]);
      const before = await store().inventory.stamp();
      expect(await store().inventory.write(aCommand([adjustBy(1n, -3)]))).toMatchObject({
        ok: false,
        error: { code: 'insufficient_stock', refusals: [{ index: 0, petId: 1n, quantity: 2, delta: -3 }] },
      });
      expect(await store().inventory.write(aCommand([adjustBy(2n, 1)]))).toMatchObject({
        ok: false,
        error: {
          code: 'quantity_limit_exceeded',
          refusals: [{ index: 0, petId: 2n, quantity: 2_147_483_647, delta: 1 }],
        },
      });
      expect(await store().inventory.get(petId(1n))).toMatchObject({ item: { quantity: 2 }, version: 1 });
      expect(await history(1n)).toEqual([]);
      expect(await history(2n)).toEqual([]);
      expect(await store().inventory.stamp()).toBe(before);
    });

    it('takes exactly the stock there is: 50 adjustments of -1 at once on 20 give 20 successes and 30 insufficient_stock', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(20) })]);
      const results = await Promise.all(
        Array.from({ length: 50 }, () => store().inventory.write(aCommand([adjustBy(1n, -1)]))),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(20);
      expect(results.filter((r) => !r.ok && r.error.code === 'insufficient_stock')).toHaveLength(30);
      expect(await store().inventory.get(petId(1n))).toMatchObject({
        item: { quantity: 0, status: 'sold' },
        version: 21,
      });
      expect(await history(1n)).toHaveLength(20);
    });
  });
}
