import assert from 'node:assert/strict';
import { FEED_START } from '../domain/feed-cursor.js';
import { quantity } from '../domain/quantity.js';
import { aCommand, aPet, setTo } from './mothers.js';
import { freshStorePerTest, type MakeStorage } from './storage-fixture.js';
import { namingRules, type TestRunner } from './test-runner.js';

/**
 * The StockChangeFeed's head (`head`), run over every storage adapter: a reader that starts there reads
 * what happens from then on, and none of the history.
 *
 * @param adapter - the name the suite is reported under
 * @param make - a fresh, empty store for each test
 * @param runner - the test runner's `{ describe, it, beforeEach, afterEach }` (node:test's or vitest's)
 */
export function describeFeedHeadContract(adapter: string, make: MakeStorage, runner: TestRunner): void {
  const { describe, it } = namingRules(runner);
  describe(`StockChangeFeed head: ${adapter}`, () => {
    const store = freshStorePerTest(make, runner, (s) => s.pets.addAll([aPet(1, { quantity: quantity(5) })]));

    it('is the start while the feed holds no change, so that the first change is read', async () => {
      assert.deepEqual(await store().feed.head(), FEED_START, 'an empty feed has its head at the start');
      await store().inventory.write(aCommand([setTo(1n, 4)]));
      const page = await store().feed.changesAfter(await store().feed.head(), 10);
      assert.deepEqual(page, [], 'after a change, the head is after it');
    });

    it('is the position of the newest change: reading after it lists none of the history, then each new change', async () => {
      for (let q = 1; q <= 5; q += 1) await store().inventory.write(aCommand([setTo(1n, q)]));
      const head = await store().feed.head();
      const everything = (await store().feed.changesAfter(FEED_START, 100)) ?? [];
      assert.deepEqual(head, everything[everything.length - 1]?.position, 'the head is the newest change’s position');
      assert.deepEqual(await store().feed.changesAfter(head, 100), [], 'a reader at the head reads no history');
      await store().inventory.write(aCommand([setTo(1n, 9)]));
      const later = (await store().feed.changesAfter(head, 100)) ?? [];
      assert.deepEqual(
        later.map(({ change }) => change.after.quantity),
        [9],
        'a reader at the head reads each change made after it',
      );
    });
  });
}
