import assert from 'node:assert/strict';
import { petId } from '../domain/pet-id.js';
import { anOrder, aPet, INT64_MAX } from './mothers.js';
import { failingStream, freshStorePerTest, type MakeStorage, pausedStream, streamOf } from './storage-fixture.js';
import { namingRules, type TestRunner } from './test-runner.js';

/**
 * The OrderBook contract, run over every storage adapter: orders listed by id, added all or none.
 *
 * @param adapter - the name the suite is reported under
 * @param make - a fresh, empty store for each test
 * @param runner - the test runner's `{ describe, it, beforeEach, afterEach }` (node:test's or vitest's)
 */
export function describeOrderBookContract(adapter: string, make: MakeStorage, runner: TestRunner): void {
  const { describe, it } = namingRules(runner);
  describe(`OrderBook contract: ${adapter}`, () => {
    const store = freshStorePerTest(make, runner, (s) => s.pets.addAll([aPet(1), aPet(INT64_MAX)]));

    it('lists nothing before any order', async () => {
      assert.deepEqual(await store().orders.list(), []);
    });

    it('lists orders by id ascending with every field kept', async () => {
      const orders = [
        anOrder(INT64_MAX, petId(INT64_MAX), { status: 'delivered', complete: true, quantity: 3 }),
        anOrder(2, petId(1n), { status: 'approved', shipDate: '2026-04-02T08:30:00.000Z' }),
      ];
      assert.deepEqual(await store().orders.addAll(orders), { ok: true, value: 2 });
      assert.deepEqual(await store().orders.list(), [orders[1], orders[0]]);
    });

    it('adds nothing when an order id repeats', async () => {
      await store().orders.addAll([anOrder(1, petId(1n))]);
      const result = await store().orders.addAll([anOrder(2, petId(1n)), anOrder(1, petId(1n))]);
      assert.equal(result.ok ? 'ok' : result.error.code, 'duplicate_order');
      assert.deepEqual(
        (await store().orders.list()).map((o) => o.id),
        [1n],
      );
    });

    it('adds nothing when an order names a pet the store does not have', async () => {
      const result = await store().orders.addAll([anOrder(1, petId(1n)), anOrder(2, petId(99n))]);
      assert.equal(result.ok ? 'ok' : result.error.code, 'pet_not_found');
      assert.deepEqual(await store().orders.list(), []);
    });

    describe('addStream: every batch or none', () => {
      const ids = async (): Promise<bigint[]> => (await store().orders.list()).map((o) => o.id);

      it('adds the orders of every batch, ids exact, and counts them', async () => {
        const orders = [
          anOrder(INT64_MAX, petId(1n)),
          anOrder(9007199254740993n, petId(INT64_MAX)),
          anOrder(1, petId(1n)),
        ];
        assert.deepEqual(await store().orders.addStream(streamOf(orders.slice(0, 2), [], orders.slice(2))), {
          ok: true,
          value: 3,
        });
        assert.deepEqual(await store().orders.list(), [orders[2], orders[1], orders[0]]);
      });

      it('adds nothing when an id is given twice, in different batches', async () => {
        const result = await store().orders.addStream(streamOf([anOrder(1, petId(1n))], [anOrder(1, petId(1n))]));
        assert.deepEqual(result, {
          ok: false,
          error: { code: 'duplicate_order', message: 'order id 1 is given twice' },
        });
        assert.deepEqual(await ids(), []);
      });

      it('adds nothing when the last batch holds an id already stored, or names a missing pet', async () => {
        await store().orders.addAll([anOrder(5, petId(1n))]);
        const stored = await store().orders.addStream(streamOf([anOrder(1, petId(1n))], [anOrder(5, petId(1n))]));
        assert.deepEqual(stored, {
          ok: false,
          error: { code: 'duplicate_order', message: 'an order with id 5 already exists' },
        });
        const orphan = await store().orders.addStream(streamOf([anOrder(1, petId(1n))], [anOrder(2, petId(99n))]));
        assert.deepEqual(orphan, {
          ok: false,
          error: { code: 'pet_not_found', message: 'order 2 names pet 99, which does not exist' },
        });
        assert.deepEqual(await ids(), [5n]);
      });

      it('adds nothing, and throws the error on, when the stream throws after its last batch', async () => {
        const bad = new Error('the file is cut short');
        await assert.rejects(
          store().orders.addStream(failingStream(bad, [anOrder(1, petId(1n))])),
          (error) => error === bad,
        );
        assert.deepEqual(await ids(), []);
      });

      it('shows nothing of a stream before it ends', async () => {
        const stream = pausedStream([anOrder(1, petId(1n))], [anOrder(2, petId(1n))]);
        const adding = store().orders.addStream(stream.batches);
        await stream.firstTaken;
        assert.deepEqual(await ids(), []);
        stream.release();
        assert.deepEqual(await adding, { ok: true, value: 2 });
        assert.deepEqual(await ids(), [1n, 2n]);
      });
    });
  });
}
