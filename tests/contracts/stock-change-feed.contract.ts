import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FeedEntry } from '../../src/application/ports/stock-change-feed.js';
import { FEED_START, type FeedPosition, isBefore } from '../../src/domain/feed-cursor.js';
import { quantity } from '../../src/domain/quantity.js';
import { aPet } from '../support/mothers.js';
import { aCommand, adjustBy, setTo } from './stock-commands.contract.js';
import type { MakeStorage, StorageFixture } from './storage-fixture.js';

/** The StockChangeFeed contract, run over every storage adapter. */
export function describeStockChangeFeedContract(adapter: string, make: MakeStorage): void {
  describe(`StockChangeFeed contract: ${adapter}`, () => {
    let store: StorageFixture;
    beforeEach(async () => {
      store = await make();
      await store.pets.addAll([aPet(1, { quantity: quantity(5) }), aPet(2, { quantity: quantity(0), status: 'sold' })]);
    });
    afterEach(async () => {
      await store.close();
    });

    /** A page after a position the feed gave (or the start): never refused. */
    const pageAfter = async (after: FeedPosition, limit: number): Promise<readonly FeedEntry[]> => {
      const page = await store.feed.changesAfter(after, limit);
      if (page === undefined) throw new Error(`the feed refused ${after.txn}.${after.id}`);
      return page;
    };

    it('lists nothing before the first change', async () => {
      expect(await pageAfter(FEED_START, 100)).toEqual([]);
    });

    it('lists every change of every pet oldest first, each after the one before it', async () => {
      await store.inventory.write(aCommand([setTo(1n, 4)]));
      await store.inventory.write(aCommand([adjustBy(2n, 3, 'restocked')]));
      await store.inventory.write(aCommand([setTo(1n, 0), adjustBy(2n, -1)]));
      const entries = await pageAfter(FEED_START, 100);
      expect(entries.map(({ change }) => [change.after.petId, change.kind, change.after.quantity])).toEqual([
        [1n, 'set', 4],
        [2n, 'adjust', 3],
        [1n, 'set', 0],
        [2n, 'adjust', 2],
      ]);
      expect(entries[1]?.change.reason).toBe('restocked');
      expect(entries[2]?.change.before.quantity).toBe(4);
      for (let i = 1; i < entries.length; i += 1) {
        expect(
          isBefore((entries[i - 1] as { position: FeedPosition }).position, entries[i]?.position as FeedPosition),
        ).toBe(true);
      }
    });

    it('goes on after a position, in pages, without repeating or skipping a change', async () => {
      for (let q = 1; q <= 7; q += 1) await store.inventory.write(aCommand([setTo(1n, q)]));
      const seen: number[] = [];
      let after = FEED_START;
      for (;;) {
        const page = await pageAfter(after, 3);
        if (page.length === 0) break;
        expect(page.length).toBeLessThanOrEqual(3);
        seen.push(...page.map(({ change }) => change.after.quantity));
        after = (page[page.length - 1] as { position: FeedPosition }).position;
      }
      expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
      await store.inventory.write(aCommand([setTo(1n, 8)]));
      expect((await pageAfter(after, 3)).map(({ change }) => change.after.quantity)).toEqual([8]);
    });

    it('answers undefined for a position it never gave, and reads on from every one it gave', async () => {
      await store.inventory.write(aCommand([setTo(1n, 4)]));
      await store.inventory.write(aCommand([setTo(1n, 3)]));
      const [first, second] = await pageAfter(FEED_START, 100);
      if (first === undefined || second === undefined) throw new Error('two changes were written');
      expect((await store.feed.changesAfter(first.position, 100))?.map(({ change }) => change.after.quantity)).toEqual([
        3,
      ]);
      expect(await store.feed.changesAfter(second.position, 100)).toEqual([]);
      const INT64_MAX = 2n ** 63n - 1n;
      for (const forged of [
        { txn: second.position.txn + 1n, id: second.position.id },
        { txn: second.position.txn, id: second.position.id + 100n },
        { txn: 1n, id: 0n },
        { txn: 0n, id: INT64_MAX },
        { txn: INT64_MAX, id: 1n },
      ]) {
        expect(await store.feed.changesAfter(forged, 100), `${forged.txn}.${forged.id}`).toBeUndefined();
      }
    });

    it('lists no change of a refused write', async () => {
      await store.inventory.write(aCommand([adjustBy(2n, -1)]));
      await store.inventory.write(aCommand([setTo(1n, 3), setTo(99n, 1)]));
      expect(await pageAfter(FEED_START, 100)).toEqual([]);
    });
  });
}
