import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FEED_START, type FeedPosition, isBefore } from '../domain/feed-cursor.js';
import { quantity } from '../domain/quantity.js';
import { aPet } from './mothers.js';
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

    it('lists nothing before the first change', async () => {
      expect(await store.feed.changesAfter(FEED_START, 100)).toEqual([]);
    });

    it('lists every change of every pet oldest first, each after the one before it', async () => {
      await store.inventory.write(aCommand([setTo(1n, 4)]));
      await store.inventory.write(aCommand([adjustBy(2n, 3, 'restocked')]));
      await store.inventory.write(aCommand([setTo(1n, 0), adjustBy(2n, -1)]));
      const entries = await store.feed.changesAfter(FEED_START, 100);
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
        const page = await store.feed.changesAfter(after, 3);
        if (page.length === 0) break;
        expect(page.length).toBeLessThanOrEqual(3);
        seen.push(...page.map(({ change }) => change.after.quantity));
        after = (page[page.length - 1] as { position: FeedPosition }).position;
      }
      expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
      await store.inventory.write(aCommand([setTo(1n, 8)]));
      expect((await store.feed.changesAfter(after, 3)).map(({ change }) => change.after.quantity)).toEqual([8]);
    });

    it('lists no change of a refused write', async () => {
      await store.inventory.write(aCommand([adjustBy(2n, -1)]));
      await store.inventory.write(aCommand([setTo(1n, 3), setTo(99n, 1)]));
      expect(await store.feed.changesAfter(FEED_START, 100)).toEqual([]);
    });
  });
}
