import assert from 'node:assert/strict';
import type { NamedInventoryItem, NamedInventoryQuery } from '../application/ports/inventory-repository.js';
import type { NewPet } from '../application/ports/pet-catalog.js';
import { type PetId, petId } from '../domain/pet-id.js';
import type { PetStatus } from '../domain/pet-status.js';
import { quantity } from '../domain/quantity.js';
import type { FiltersFixture } from './inventory-filters.contract.js';
import { namingRules, type TestRunner } from './test-runner.js';

const pet = (id: number, name: string, q = 5, status: PetStatus = 'available'): NewPet => ({
  id: petId(BigInt(id)),
  name,
  quantity: quantity(q),
  status,
});

const ids = (items: readonly NamedInventoryItem[]): bigint[] => items.map((item) => item.petId);

/**
 * The list's pages with names (`listNamed`): every entry with its pet's name and category, and the
 * search by part of a name, letter case aside, with the filters and keyset paging. `make` gives a
 * fresh, empty store for each test.
 */
export function describeNamedInventoryContract(
  name: string,
  make: () => Promise<FiltersFixture>,
  runner: TestRunner,
): void {
  const { describe, it, beforeEach, afterEach } = namingRules(runner);
  describe(`InventoryRepository named pages (${name})`, () => {
    let store: FiltersFixture;
    beforeEach(async () => {
      store = await make();
    });
    afterEach(async () => {
      await store.close();
    });

    const page = (query: NamedInventoryQuery) => store.inventory.listNamed(query);

    /** Every page of `limit` entries of `query`, each after the last one's id, as a client reads them. */
    async function pages(query: Omit<NamedInventoryQuery, 'limit'>, limit: number): Promise<bigint[][]> {
      const read: bigint[][] = [];
      let after: PetId | undefined;
      for (;;) {
        const items = await page({ ...query, limit, ...(after === undefined ? {} : { after }) });
        assert.ok(items.length <= limit, `a page holds at most its limit, ${limit}`);
        if (items.length === 0) return read;
        read.push(ids(items));
        after = (items[items.length - 1] as NamedInventoryItem).petId;
      }
    }

    it('gives each entry its pet’s name, and its category only when it has one', async () => {
      await store.pets.addAll([
        { ...pet(2, 'Oscar', 3), category: { id: 9_007_199_254_740_993n, name: 'Dogs' } },
        pet(1, 'Maple', 0, 'sold'),
      ]);
      assert.deepEqual(
        await page({ limit: 10 }),
        [
          { petId: 1n, name: 'Maple', quantity: 0, reserved: 0, status: 'sold' },
          {
            petId: 2n,
            name: 'Oscar',
            category: { id: 9_007_199_254_740_993n, name: 'Dogs' },
            quantity: 3,
            reserved: 0,
            status: 'available',
          },
        ],
        'a named entry is the item with its pet’s name (and category id exact)',
      );
    });

    it('finds the pets whose name holds the text, letter case aside, in id order', async () => {
      await store.pets.addAll([
        pet(4, 'Sugar MAPLE'),
        pet(1, 'Maple'),
        pet(2, 'Oscar'),
        pet(3, 'maplewood'),
        pet(5, 'Map'),
      ]);
      assert.deepEqual(ids(await page({ nameContains: 'mAPle', limit: 10 })), [1n, 3n, 4n], 'three characters or more');
      assert.deepEqual(ids(await page({ nameContains: 'ap', limit: 10 })), [1n, 3n, 4n, 5n], 'fewer than three');
      assert.deepEqual(ids(await page({ nameContains: 'car', limit: 10 })), [2n], 'inside the name');
      assert.deepEqual(ids(await page({ nameContains: 'zebra', limit: 10 })), [], 'no name holds it');
    });

    it('takes the text literally: wildcards and quotes of a query language match only themselves', async () => {
      await store.pets.addAll([pet(1, 'Maple'), pet(2, '100% "Rex"'), pet(3, 'a_b')]);
      assert.deepEqual(ids(await page({ nameContains: '%', limit: 10 })), [2n], 'a percent sign');
      assert.deepEqual(ids(await page({ nameContains: '_', limit: 10 })), [3n], 'an underscore');
      assert.deepEqual(ids(await page({ nameContains: '"Rex"', limit: 10 })), [2n], 'double quotes');
      assert.deepEqual(ids(await page({ nameContains: 'a%', limit: 10 })), [], 'no wildcard');
    });

    it('combines the search with the statuses and maxAvailable', async () => {
      await store.pets.addAll([
        pet(1, 'Maple', 9),
        pet(2, 'Maple Two', 1, 'pending'),
        pet(3, 'Maple Three', 0, 'sold'),
        pet(4, 'Oscar', 0, 'sold'),
      ]);
      assert.deepEqual(
        ids(await page({ nameContains: 'maple', maxAvailable: 1, limit: 10 })),
        [2n, 3n],
        'and low stock',
      );
      assert.deepEqual(ids(await page({ nameContains: 'maple', statuses: ['sold'], limit: 10 })), [3n], 'and a status');
      assert.deepEqual(
        ids(await page({ nameContains: 'ple', statuses: ['pending', 'sold'], maxAvailable: 0, limit: 10 })),
        [3n],
        'and both',
      );
    });

    it('pages a search by key: every match once, in id order, however the pages fall', async () => {
      const many = Array.from({ length: 23 }, (_, i) => pet(i + 1, i % 3 === 0 ? `Maple ${i}` : `Oscar ${i}`));
      await store.pets.addAll(many);
      const expected = many.filter((p) => p.name.startsWith('Maple')).map((p) => p.id);
      for (const limit of [1, 3, 100]) {
        assert.deepEqual((await pages({ nameContains: 'maple' }, limit)).flat(), expected, `pages of ${limit}`);
        assert.deepEqual(
          (await pages({ nameContains: 'le' }, limit)).flat(),
          expected,
          `pages of ${limit}, short text`,
        );
      }
      assert.deepEqual(
        (await pages({}, 10)).flat(),
        many.map((p) => p.id),
        'without a search, every pet',
      );
    });
  });
}
