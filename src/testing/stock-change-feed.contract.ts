import assert from 'node:assert/strict';
import type { FeedEntry } from '../application/ports/stock-change-feed.js';
import { FEED_START, type FeedPosition, isBefore } from '../domain/feed-cursor.js';
import { quantity } from '../domain/quantity.js';
import { aCommand, adjustBy, aPet, setTo } from './mothers.js';
import { freshStorePerTest, type MakeStorage } from './storage-fixture.js';
import { namingRules, type TestRunner } from './test-runner.js';

/**
 * The StockChangeFeed contract, run over every storage adapter: every change of every pet in order,
 * paged from a position without repeats or gaps.
 *
 * @param adapter - the name the suite is reported under
 * @param make - a fresh, empty store for each test
 * @param runner - the test runner's `{ describe, it, beforeEach, afterEach }` (node:test's or vitest's)
 */
export function describeStockChangeFeedContract(adapter: string, make: MakeStorage, runner: TestRunner): void {
  const { describe, it } = namingRules(runner);
  describe(`StockChangeFeed contract: ${adapter}`, () => {
    const store = freshStorePerTest(make, runner, (s) =>
      s.pets.addAll([aPet(1, { quantity: quantity(5) }), aPet(2, { quantity: quantity(0), status: 'sold' })]),
    );

    /** A page after a position the feed gave (or the start): never refused. */
    const pageAfter = async (after: FeedPosition, limit: number): Promise<readonly FeedEntry[]> => {
      const page = await store().feed.changesAfter(after, limit);
      if (page === undefined) throw new Error(`the feed refused ${after.txn}.${after.id}`);
      return page;
    };

    it('lists nothing before the first change', async () => {
      assert.deepEqual(await pageAfter(FEED_START, 100), []);
    });

    it('lists every change of every pet oldest first, each after the one before it', async () => {
      await store().inventory.write(aCommand([setTo(1n, 4)]));
      await store().inventory.write(aCommand([adjustBy(2n, 3, 'restocked')]));
      await store().inventory.write(aCommand([setTo(1n, 0), adjustBy(2n, -1)]));
      const entries = await pageAfter(FEED_START, 100);
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
        const page = await pageAfter(after, 3);
        if (page.length === 0) break;
        assert.ok(page.length <= 3, `a page of ${page.length}`);
        seen.push(...page.map(({ change }) => change.after.quantity));
        after = (page[page.length - 1] as { position: FeedPosition }).position;
      }
      assert.deepEqual(seen, [1, 2, 3, 4, 5, 6, 7]);
      await store().inventory.write(aCommand([setTo(1n, 8)]));
      assert.deepEqual(
        (await pageAfter(after, 3)).map(({ change }) => change.after.quantity),
        [8],
      );
    });

    it('answers undefined for a position it never gave, and reads on from every one it gave', async () => {
      await store().inventory.write(aCommand([setTo(1n, 4)]));
      await store().inventory.write(aCommand([setTo(1n, 3)]));
      const [first, second] = await pageAfter(FEED_START, 100);
      if (first === undefined || second === undefined) throw new Error('two changes were written');
      assert.deepEqual(
        (await store().feed.changesAfter(first.position, 100))?.map(({ change }) => change.after.quantity),
        [3],
      );
      assert.deepEqual(await store().feed.changesAfter(second.position, 100), []);
      const INT64_MAX = 2n ** 63n - 1n;
      for (const forged of [
        { txn: second.position.txn + 1n, id: second.position.id },
        { txn: second.position.txn, id: second.position.id + 100n },
        { txn: 1n, id: 0n },
        { txn: 0n, id: INT64_MAX },
        { txn: INT64_MAX, id: 1n },
      ]) {
        assert.equal(await store().feed.changesAfter(forged, 100), undefined, `${forged.txn}.${forged.id}`);
      }
    });

    it('lists no change of a refused write', async () => {
      await store().inventory.write(aCommand([adjustBy(2n, -1)]));
      await store().inventory.write(aCommand([setTo(1n, 3), setTo(99n, 1)]));
      assert.deepEqual(await pageAfter(FEED_START, 100), []);
    });
  });
}
