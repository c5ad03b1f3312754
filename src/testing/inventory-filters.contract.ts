import assert from 'node:assert/strict';
import type { InventoryQuery, InventoryRepository } from '../application/ports/inventory-repository.js';
import type { NewPet, PetCatalog } from '../application/ports/pet-catalog.js';
import type { InventoryItem } from '../domain/inventory-item.js';
import { type PetId, petId } from '../domain/pet-id.js';
import type { PetStatus } from '../domain/pet-status.js';
import { quantity } from '../domain/quantity.js';
import { namingRules, type TestRunner } from './test-runner.js';

/** What the suite needs of a store: its inventory, its pets, and the clock it reads holds at. */
export interface FiltersFixture {
  readonly inventory: InventoryRepository;
  readonly pets: Pick<PetCatalog, 'addAll'>;
  readonly clock: { nowMs(): number; advance(ms: number): void };
  close(): Promise<void>;
}

const MINUTE = 60_000;

const pet = (id: number, q: number, status: PetStatus = 'available'): NewPet => ({
  id: petId(BigInt(id)),
  name: `pet ${id}`,
  quantity: quantity(q),
  status,
});

async function all(list: AsyncIterable<readonly InventoryItem[]>): Promise<InventoryItem[]> {
  const items: InventoryItem[] = [];
  for await (const chunk of list) items.push(...chunk);
  return items;
}

const ids = (items: readonly InventoryItem[]): bigint[] => items.map((item) => item.petId);

/**
 * The list's filters on InventoryRepository (`statuses`, `maxAvailable`), alone, together, and with
 * keyset paging: every page is the first `limit` matching entries after `after`, in id order, whether
 * the matches are many or few and far between. `make` gives a fresh, empty store for each test.
 */
export function describeInventoryFiltersContract(
  name: string,
  make: () => Promise<FiltersFixture>,
  runner: TestRunner,
): void {
  const { describe, it, beforeEach, afterEach } = namingRules(runner);
  describe(`InventoryRepository list filters (${name})`, () => {
    let store: FiltersFixture;
    beforeEach(async () => {
      store = await make();
    });
    afterEach(async () => {
      await store.close();
    });

    const list = (query: InventoryQuery) => all(store.inventory.list(query));

    /** Reads every page of `limit` entries of `query` as a client would, each after the last one's id. */
    async function pages(query: InventoryQuery, limit: number): Promise<InventoryItem[][]> {
      const read: InventoryItem[][] = [];
      let after: PetId | undefined;
      for (;;) {
        const page = await list({ ...query, limit, ...(after === undefined ? {} : { after }) });
        assert.ok(page.length <= limit, `a page holds at most ${limit} entries`);
        if (page.length === 0) return read;
        read.push(page);
        after = (page[page.length - 1] as InventoryItem).petId;
      }
    }

    const reserve = (id: number, q: number, ttlMs: number) =>
      store.inventory.writeReservation({
        reservation: { kind: 'reserve', petId: petId(BigInt(id)), quantity: quantity(q), ttlMs },
        actor: 'key_a',
        atMs: store.clock.nowMs(),
      });

    describe('status', () => {
      it('lists only the pets of the one status asked for, in id order', async () => {
        await store.pets.addAll([pet(3, 1, 'sold'), pet(1, 1), pet(2, 1, 'pending'), pet(5, 1, 'sold'), pet(4, 1)]);
        assert.deepEqual(ids(await list({ statuses: ['sold'] })), [3n, 5n]);
        assert.deepEqual(ids(await list({ statuses: ['available'] })), [1n, 4n]);
      });

      it('lists the pets of any of several statuses, merged in id order', async () => {
        await store.pets.addAll([pet(1, 1), pet(2, 1, 'pending'), pet(3, 1, 'sold'), pet(4, 1), pet(6, 1, 'pending')]);
        assert.deepEqual(ids(await list({ statuses: ['available', 'pending'] })), [1n, 2n, 4n, 6n]);
        assert.deepEqual(ids(await list({ statuses: ['sold', 'pending', 'available'] })), [1n, 2n, 3n, 4n, 6n]);
      });

      it('answers no entry when no pet has the status', async () => {
        await store.pets.addAll([pet(1, 1), pet(2, 1)]);
        assert.deepEqual(await list({ statuses: ['sold'] }), []);
        assert.deepEqual(await list({ statuses: ['sold'], limit: 10 }), []);
      });
    });

    describe('maxAvailable', () => {
      it('lists the pets whose available is at or below the bound, 0 included', async () => {
        await store.pets.addAll([pet(1, 0), pet(2, 5), pet(3, 6), pet(4, 100), pet(5, 4)]);
        assert.deepEqual(ids(await list({ maxAvailable: 5 })), [1n, 2n, 5n]);
        assert.deepEqual(ids(await list({ maxAvailable: 0 })), [1n]);
        assert.deepEqual(ids(await list({ maxAvailable: 2_147_483_647 })), [1n, 2n, 3n, 4n, 5n]);
      });

      it('counts what is reserved: a hold lowers what is available, and stops counting once it lapses', async () => {
        await store.pets.addAll([pet(1, 10), pet(2, 10)]);
        const held = await reserve(1, 8, 10 * MINUTE);
        assert.ok(held.ok);
        const low = await list({ maxAvailable: 2 });
        assert.deepEqual(low, [{ petId: 1n, quantity: 10, status: 'available', reserved: 8 }]);
        store.clock.advance(11 * MINUTE);
        assert.deepEqual(await list({ maxAvailable: 2 }), []);
        assert.deepEqual(ids(await list({ maxAvailable: 10 })), [1n, 2n]);
      });

      it('combines with status: both must hold', async () => {
        await store.pets.addAll([pet(1, 1), pet(2, 1, 'pending'), pet(3, 9, 'pending'), pet(4, 1, 'sold')]);
        assert.deepEqual(ids(await list({ statuses: ['pending', 'sold'], maxAvailable: 1 })), [2n, 4n]);
      });
    });

    describe('paging', () => {
      it('pages a status filter by key: each page the next matches after the last id, none twice', async () => {
        const statuses: PetStatus[] = ['available', 'pending', 'sold'];
        await store.pets.addAll(Array.from({ length: 40 }, (_, i) => pet(i + 1, i % 7, statuses[i % 3])));
        const read = await pages({ statuses: ['pending', 'sold'] }, 7);
        assert.deepEqual(
          read.map((page) => page.length),
          [7, 7, 7, 5],
        );
        const expected = (await list({})).filter((item) => item.status !== 'available');
        assert.deepEqual(read.flat(), expected);
      });

      it('pages a sparse low-stock filter over many pets exactly, wherever the matches lie', async () => {
        // Low stock at a few ids far apart, among thousands of well-stocked pets: more than one walk's worth.
        const low = new Set([2, 2_600, 2_601, 4_999, 5_000]);
        await store.pets.addAll(
          Array.from({ length: 5_000 }, (_, i) => pet(i + 1, low.has(i + 1) ? 1 : 50, i % 2 ? 'available' : 'pending')),
        );
        const read = await pages({ maxAvailable: 3 }, 2);
        assert.deepEqual(read.map(ids), [[2n, 2_600n], [2_601n, 4_999n], [5_000n]]);
        assert.deepEqual(ids(await list({ maxAvailable: 3, statuses: ['pending'] })), [2_601n, 4_999n]);
        assert.deepEqual(ids(await list({ maxAvailable: 3, after: petId(2_600n), limit: 10 })), [
          2_601n,
          4_999n,
          5_000n,
        ]);
      });

      it('pages a dense low-stock filter exactly too', async () => {
        await store.pets.addAll(Array.from({ length: 3_000 }, (_, i) => pet(i + 1, i % 10)));
        const read = await pages({ maxAvailable: 4 }, 1_000);
        assert.deepEqual(
          read.map((page) => page.length),
          [1_000, 500],
        );
        assert.ok(read.flat().every((item) => item.quantity <= 4));
        assert.deepEqual(
          read.flat(),
          (await list({})).filter((item) => item.quantity <= 4),
        );
      });
    });
  });
}
