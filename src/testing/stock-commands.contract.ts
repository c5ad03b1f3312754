import assert from 'node:assert/strict';
import { petId } from '../domain/pet-id.js';
import { quantity } from '../domain/quantity.js';
import { assertMatches } from './assert-match.js';
import { aCommand, adjustBy, aPet, COMMAND_AT_MS, setTo } from './mothers.js';
import type { StorageFixture } from './storage-fixture.js';
import { namingRules, type TestRunner } from './test-runner.js';

const AT = COMMAND_AT_MS;

/**
 * The InventoryRepository contract's commands beyond setting one pet: adjustments, and commands of
 * several pets (batches). Called inside describeInventoryRepositoryContract, with its store.
 *
 * @param store - the store of the running test
 * @param runner - the test runner's `{ describe, it, beforeEach, afterEach }`
 */
export function describeStockCommandsContract(store: () => StorageFixture, runner: TestRunner): void {
  const { describe, it } = namingRules(runner);
  const history = async (id: bigint) => (await store().changes.history(petId(id), { limit: 1_000 })) ?? [];

  describe('adjust', () => {
    it('moves the stock by the delta, the status by the rule on the result, and records an adjust', async () => {
      await store().pets.addAll([
        aPet(1, { quantity: quantity(3) }),
        aPet(2, { quantity: quantity(0), status: 'sold' }),
      ]);
      const down = await store().inventory.write(aCommand([adjustBy(1n, -3, 'sold out at the fair')]));
      assertMatches(down, {
        ok: true,
        value: { entries: [{ change: { kind: 'adjust', after: { quantity: 0, status: 'sold' } }, version: 2 }] },
      });
      await store().inventory.write(aCommand([adjustBy(2n, 2)]));
      assertMatches(await store().inventory.get(petId(2n)), { item: { quantity: 2, status: 'available' } });
      assert.deepEqual(
        (await history(1n)).map((c) => [c.kind, c.reason]),
        [['adjust', 'sold out at the fair']],
      );
    });

    it('refuses a result below 0 with insufficient_stock, and above the maximum with quantity_limit_exceeded, writing nothing', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(2) }), aPet(2, { quantity: quantity(2_147_483_647) })]);
      const before = await store().inventory.stamp();
      assertMatches(await store().inventory.write(aCommand([adjustBy(1n, -3)])), {
        ok: false,
        error: { code: 'insufficient_stock', refusals: [{ index: 0, petId: 1n, quantity: 2, delta: -3 }] },
      });
      assertMatches(await store().inventory.write(aCommand([adjustBy(2n, 1)])), {
        ok: false,
        error: {
          code: 'quantity_limit_exceeded',
          refusals: [{ index: 0, petId: 2n, quantity: 2_147_483_647, delta: 1 }],
        },
      });
      assertMatches(await store().inventory.get(petId(1n)), { item: { quantity: 2 }, version: 1 });
      assert.deepEqual(await history(1n), []);
      assert.deepEqual(await history(2n), []);
      assert.equal(await store().inventory.stamp(), before);
    });

    it('takes exactly the stock there is: 50 adjustments of -1 at once on 20 give 20 successes and 30 insufficient_stock', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(20) })]);
      const results = await Promise.all(
        Array.from({ length: 50 }, () => store().inventory.write(aCommand([adjustBy(1n, -1)]))),
      );
      assert.equal(results.filter((r) => r.ok).length, 20);
      assert.equal(results.filter((r) => !r.ok && r.error.code === 'insufficient_stock').length, 30);
      assertMatches(await store().inventory.get(petId(1n)), {
        item: { quantity: 0, status: 'sold' },
        version: 21,
      });
      assert.equal((await history(1n)).length, 20);
    });
  });

  describe('a command of several pets (a batch)', () => {
    const claim = (key: string, fingerprint = 'POST /v1/inventory/batch') => ({
      scope: 'key_a',
      key,
      fingerprint,
      expiresAtMs: AT + 86_400_000,
    });

    it('applies every order in one go: entries in the command’s order, one change each, versions moved', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(5) }), aPet(2, { quantity: quantity(1) })]);
      const result = await store().inventory.write(aCommand([adjustBy(2n, -1, 'sold'), setTo(1n, 9)]));
      assertMatches(result, {
        ok: true,
        value: {
          replayed: false,
          entries: [
            {
              change: { kind: 'adjust', reason: 'sold', after: { petId: 2n, quantity: 0, status: 'sold' } },
              version: 2,
            },
            { change: { kind: 'set', reason: null, after: { petId: 1n, quantity: 9 } }, version: 2 },
          ],
        },
      });
      assert.deepEqual(
        (await history(1n)).map((c) => c.after.quantity),
        [9],
      );
      assert.deepEqual(
        (await history(2n)).map((c) => c.after.quantity),
        [0],
      );
    });

    it('writes nothing when one pet is unknown, and names the refused order by its index', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(5) }), aPet(2)]);
      const before = await store().inventory.stamp();
      const result = await store().inventory.write(aCommand([setTo(1n, 9), setTo(404n, 1), adjustBy(2n, 1)]));
      assertMatches(result, {
        ok: false,
        error: { code: 'pet_not_found', refusals: [{ index: 1, code: 'pet_not_found', petId: 404n }] },
      });
      assertMatches(await store().inventory.get(petId(1n)), { item: { quantity: 5 }, version: 1 });
      assert.deepEqual(await history(1n), []);
      assert.deepEqual(await history(2n), []);
      assert.equal(await store().inventory.stamp(), before);
    });

    it('answers every refused order, the first one’s code first', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(1) }), aPet(2), aPet(3)]);
      const result = await store().inventory.write(
        aCommand([setTo(3n, 4), adjustBy(1n, -2), { ...setTo(2n, 1), ifVersion: [7] }, setTo(404n, 1)]),
      );
      assertMatches(result, {
        ok: false,
        error: {
          code: 'insufficient_stock',
          refusals: [
            { index: 1, code: 'insufficient_stock' },
            { index: 2, code: 'precondition_failed', currentVersion: 1 },
            { index: 3, code: 'pet_not_found' },
          ],
        },
      });
      assert.deepEqual(await history(3n), []);
    });

    it('writes nothing when replayed: the retry gets the first outcome, refused or not', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(5) }), aPet(2, { quantity: quantity(5) })]);
      const command = aCommand([adjustBy(1n, -1), adjustBy(2n, -1)], { idempotency: claim('b1') });
      const first = await store().inventory.write(command);
      const stamp = await store().inventory.stamp();
      const retry = await store().inventory.write({ ...command, atMs: AT + 1_000 });
      assert.deepEqual(retry, first.ok ? { ok: true, value: { ...first.value, replayed: true } } : undefined);
      assert.equal(await store().inventory.stamp(), stamp);
      assert.equal((await history(1n)).length, 1);
      assert.equal((await history(2n)).length, 1);
      const refused = aCommand([adjustBy(1n, -1), setTo(404n, 1)], { idempotency: claim('b2') });
      await store().inventory.write(refused);
      assertMatches(await store().inventory.write(refused), {
        ok: false,
        error: { code: 'pet_not_found', refusals: [{ index: 1 }], replayed: true },
      });
      assertMatches(await store().inventory.get(petId(1n)), { item: { quantity: 4 }, version: 2 });
    });

    it('keeps batches whole under contention: of 20 batches taking 1 from two pets, exactly as many as the scarcer allows win', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(10) }), aPet(2, { quantity: quantity(5) })]);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          store().inventory.write(
            aCommand(i % 2 === 0 ? [adjustBy(1n, -1), adjustBy(2n, -1)] : [adjustBy(2n, -1), adjustBy(1n, -1)]),
          ),
        ),
      );
      assert.equal(results.filter((r) => r.ok).length, 5);
      assertMatches(await store().inventory.get(petId(1n)), { item: { quantity: 5 }, version: 6 });
      assertMatches(await store().inventory.get(petId(2n)), { item: { quantity: 0 }, version: 6 });
      assert.equal((await history(1n)).length, 5);
    });
  });
}
