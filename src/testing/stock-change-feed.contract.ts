import assert from 'node:assert/strict';
import { FEED_START, type FeedPosition, isBefore } from '../domain/feed-cursor.js';
import { quantity } from '../domain/quantity.js';
import { aCommand, adjustBy, aPet, setTo } from './mothers.js';
import { freshStorePerTest, type MakeStorage } from './storage-fixture.js';
import type { TestRunner } from './test-runner.js';

/**
 * The StockChangeFeed contract, run over every storage adapter: every change of every pet in order,
 * paged from a position without repeats or gaps.
 *
 * @param adapter - the name the suite is reported under
 * @param make - a fresh, empty store for each test
 * @param runner - the test runner's `{ describe, it, beforeEach, afterEach }` (node:test's or vitest's)
 */
export function describeStockChangeFeedContract(adapter: string, make: MakeStorage, runner: TestRunner): void {
  const { describe, it } = runner;
  describe(`StockChangeFeed contract: ${adapter}`, () => {
    const store = freshStorePerTest(make, runner, (s) =>
      s.pets.addAll([aPet(1, { quantity: quantity(5) }), aPet(2, { quantity: quantity(0), status: 'sold' })]),
    );

    it('lists nothing before the first change', async () => {
      assert.deepEqual(await store().feed.changesAfter(FEED_START, 100), []);
    });

    it('lists every change of every pet oldest first, each after the one before it', async () => {
      await store().inventory.write(aCommand([setTo(1n, 4)]));
      await store().inventory.write(aCommand([adjustBy(2n, 3, 'restocked')]));
      await store().inventory.write(aCommand([setTo(1n, 0), adjustBy(2n, -1)]));
      const entries = await store().feed.changesAfter(FEED_START, 100);
      assert.deepEqual(
        entries.map(({ change }) => [change.after.petId, change.kind, change.after.quantity]),
        [
          [1n, 'set', 4],
          [2n, 'adjust', 3],
          [1n, 'set', 0],
          [2n, 'adjust', 2],
        ],
      );
      assert.equal(entries[1]?.change.reason, 'restocked');
      assert.equal(entries[2]?.change.before.quantity, 4);
      for (let i = 1; i < entries.length; i += 1) {
        assert.ok(
          isBefore((entries[i - 1] as { position: FeedPosition }).position, entries[i]?.position as FeedPosition),
        );
      }
    });

    it('goes on after a position, in pages, without repeating or skipping a change', async () => {
      for (let q = 1; q <= 7; q += 1) await store().inventory.write(aCommand([setTo(1n, q)]));
      const seen: number[] = [];
      let after = FEED_START;
      for (;;) {
        const page = await store().feed.changesAfter(after, 3);
        if (page.length === 0) break;
        assert.ok(page.length <= 3, `a page of ${page.length}`);
        seen.push(...page.map(({ change }) => change.after.quantity));
        after = (page[page.length - 1] as { position: FeedPosition }).position;
      }
      assert.deepEqual(seen, [1, 2, 3, 4, 5, 6, 7]);
      await store().inventory.write(aCommand([setTo(1n, 8)]));
      assert.deepEqual(
        (await store().feed.changesAfter(after, 3)).map(({ change }) => change.after.quantity),
        [8],
      );
    });

    it('lists no change of a refused write', async () => {
      await store().inventory.write(aCommand([adjustBy(2n, -1)]));
      await store().inventory.write(aCommand([setTo(1n, 3), setTo(99n, 1)]));
      assert.deepEqual(await store().feed.changesAfter(FEED_START, 100), []);
    });
  });
}
