import assert from 'node:assert/strict';
import type { NewPet, PetCatalog, StockedPet } from '../application/ports/pet-catalog.js';
import { PET_NAME_MAX, PHOTO_URL_MAX, TAG_NAME_MAX, TAGS_MAX } from '../domain/pet.js';
import { petId } from '../domain/pet-id.js';
import { quantity } from '../domain/quantity.js';
import { assertMatches } from './assert-match.js';
import { aPet, INT64_MAX, INT64_MIN } from './mothers.js';
import {
  drain,
  failingStream,
  freshStorePerTest,
  type MakeStorage,
  pausedStream,
  streamOf,
} from './storage-fixture.js';
import { namingRules, type TestRunner } from './test-runner.js';

/** Every pet the export hands out, and the sizes of its chunks. */
async function exported(pets: PetCatalog): Promise<{ pets: StockedPet[]; chunkSizes: number[] }> {
  const all: StockedPet[] = [];
  const chunkSizes: number[] = [];
  for await (const chunk of pets.listWithStock()) {
    chunkSizes.push(chunk.length);
    all.push(...chunk);
  }
  return { pets: all, chunkSizes };
}

const ids = (pets: readonly { readonly id: bigint }[]): bigint[] => pets.map((p) => p.id);

/**
 * The PetCatalog contract, run over every storage adapter: pets kept exact, added all or none (from a
 * stream too), refused past the domain's limits, and exported in the shape `addStream` takes back.
 *
 * @param adapter - the name the suite is reported under
 * @param make - a fresh, empty store for each test
 * @param runner - the test runner's `{ describe, it, beforeEach, afterEach }` (node:test's or vitest's)
 */
export function describePetCatalogContract(adapter: string, make: MakeStorage, runner: TestRunner): void {
  const { describe, it } = namingRules(runner);
  describe(`PetCatalog contract: ${adapter}`, () => {
    const store = freshStorePerTest(make, runner);

    it('returns a pet as added, every field kept', async () => {
      const pet = aPet(INT64_MAX, {
        name: 'Rex "the" dog',
        status: 'pending',
        category: { id: 3n, name: 'Dogs' },
        photoUrls: ['https://example.test/rex.jpg'],
        tags: [{ id: 9n, name: 'friendly' }],
      });
      await store().pets.addAll([pet]);
      assert.deepEqual(await store().pets.get(petId(INT64_MAX)), {
        id: INT64_MAX,
        name: 'Rex "the" dog',
        status: 'pending',
        category: { id: 3n, name: 'Dogs' },
        photoUrls: ['https://example.test/rex.jpg'],
        tags: [{ id: 9n, name: 'friendly' }],
      });
    });

    it('returns a pet without category with empty lists and no category', async () => {
      await store().pets.addAll([aPet(INT64_MIN)]);
      assert.deepEqual(await store().pets.get(petId(INT64_MIN)), {
        id: INT64_MIN,
        name: `pet ${INT64_MIN}`,
        status: 'available',
        photoUrls: [],
        tags: [],
      });
    });

    it('answers undefined for an unknown id', async () => {
      assert.equal(await store().pets.get(petId(1n)), undefined);
    });

    it('starts the inventory entry of each pet it adds', async () => {
      await store().pets.addAll([aPet(2, { quantity: quantity(11) })]);
      const { items } = await drain(store().inventory.list());
      assert.deepEqual(items, [{ petId: 2n, quantity: 11, status: 'available', reserved: 0 }]);
    });

    it('adds nothing when an id is given twice in one batch', async () => {
      const result = await store().pets.addAll([aPet(1), aPet(2), aPet(1)]);
      assert.equal(result.ok, false);
      if (!result.ok) {
        assert.equal(result.error.code, 'duplicate_pet');
        assert.match(result.error.message, /1/);
      }
      assert.equal(await store().pets.get(petId(2n)), undefined);
    });

    it('adds nothing when an id is already stored', async () => {
      await store().pets.addAll([aPet(1)]);
      const result = await store().pets.addAll([aPet(2), aPet(1)]);
      assert.equal(result.ok, false);
      assert.equal(await store().pets.get(petId(2n)), undefined);
      const { items } = await drain(store().inventory.list());
      assert.deepEqual(
        items.map((i) => i.petId),
        [1n],
      );
    });

    describe('pets beyond the domain limits are a bug of the caller: refused with a RangeError', () => {
      const beyondTheLimits: [string, NewPet][] = [
        ['a name too long', aPet(1, { name: 'n'.repeat(PET_NAME_MAX + 1) })],
        ['an empty name', aPet(1, { name: '' })],
        ['a photo URL too long', aPet(1, { photoUrls: [`https://example.test/${'p'.repeat(PHOTO_URL_MAX)}`] })],
        ['a tag name too long', aPet(1, { tags: [{ id: 1n, name: 't'.repeat(TAG_NAME_MAX + 1) }] })],
        [
          'too many tags',
          aPet(1, { tags: Array.from({ length: TAGS_MAX + 1 }, (_, i) => ({ id: BigInt(i), name: 't' })) }),
        ],
      ];
      for (const [pastALimit, pet] of beyondTheLimits) {
        it(`${pastALimit}, by addAll and by addStream, adding nothing`, async () => {
          await assert.rejects(store().pets.addAll([aPet(2), pet]), RangeError);
          await assert.rejects(store().pets.addStream(streamOf([aPet(3)], [pet])), RangeError);
          assert.deepEqual((await exported(store().pets)).pets, []);
        });
      }

      it('takes every field at its limit', async () => {
        const pet = aPet(1, {
          name: 'n'.repeat(PET_NAME_MAX),
          photoUrls: [`https://example.test/${'u'.repeat(PHOTO_URL_MAX - 'https://example.test/'.length)}`],
          tags: Array.from({ length: TAGS_MAX }, (_, i) => ({ id: BigInt(i), name: 't'.repeat(TAG_NAME_MAX) })),
        });
        assert.deepEqual(await store().pets.addAll([pet]), { ok: true, value: 1 });
      });
    });

    describe('addStream: every batch or none', () => {
      it('adds the pets of every batch, int64 extremes and every field exact, and counts them', async () => {
        const full = aPet(INT64_MAX, {
          status: 'pending',
          category: { id: INT64_MIN, name: 'Dogs' },
          photoUrls: ['https://example.test/a.jpg'],
          tags: [{ id: 9007199254740993n, name: 'calm' }],
        });
        const result = await store().pets.addStream(streamOf([aPet(INT64_MIN), aPet(2)], [], [full]));
        assert.deepEqual(result, { ok: true, value: 3 });
        assert.deepEqual(await store().pets.get(petId(INT64_MAX)), {
          id: INT64_MAX,
          name: full.name,
          status: 'pending',
          category: { id: INT64_MIN, name: 'Dogs' },
          photoUrls: ['https://example.test/a.jpg'],
          tags: [{ id: 9007199254740993n, name: 'calm' }],
        });
        const { items } = await drain(store().inventory.list());
        assert.deepEqual(
          items.map((i) => i.petId),
          [INT64_MIN, 2n, INT64_MAX],
        );
      });

      it('adds nothing from an empty stream', async () => {
        assert.deepEqual(await store().pets.addStream(streamOf()), { ok: true, value: 0 });
      });

      it('adds nothing when an id is given twice, in different batches', async () => {
        const result = await store().pets.addStream(streamOf([aPet(1), aPet(2)], [aPet(3)], [aPet(1)]));
        assert.deepEqual(result, { ok: false, error: { code: 'duplicate_pet', message: 'pet id 1 is given twice' } });
        assert.deepEqual((await exported(store().pets)).pets, []);
      });

      it('adds nothing when the last batch holds an id already stored', async () => {
        await store().pets.addAll([aPet(7)]);
        const result = await store().pets.addStream(streamOf([aPet(1), aPet(2)], [aPet(8), aPet(7)]));
        assert.deepEqual(result, {
          ok: false,
          error: { code: 'duplicate_pet', message: 'a pet with id 7 already exists' },
        });
        assert.deepEqual(ids((await exported(store().pets)).pets), [7n]);
      });

      it('adds nothing, and throws the error on, when the stream throws after its last batch', async () => {
        const bad = new Error('the file is cut short');
        await assert.rejects(
          store().pets.addStream(failingStream(bad, [aPet(1)], [aPet(2)])),
          (error) => error === bad,
        );
        assert.deepEqual((await exported(store().pets)).pets, []);
        // Nothing of the failed stream lingers to clash with a later one.
        assert.deepEqual(await store().pets.addStream(streamOf([aPet(1)], [aPet(2)])), { ok: true, value: 2 });
      });

      it('shows nothing of a stream before it ends, and lets other writes go on meanwhile', async () => {
        const stream = pausedStream([aPet(1), aPet(2)], [aPet(3)]);
        const adding = store().pets.addStream(stream.batches);
        await stream.firstTaken;
        assert.equal(await store().pets.get(petId(1n)), undefined);
        assert.deepEqual((await drain(store().inventory.list())).items, []);
        assert.deepEqual(await store().pets.addAll([aPet(10)]), { ok: true, value: 1 });
        stream.release();
        assert.deepEqual(await adding, { ok: true, value: 3 });
        assert.deepEqual(ids((await exported(store().pets)).pets), [1n, 2n, 3n, 10n]);
      });

      it('refuses an id that another writer stored while the stream was read', async () => {
        const stream = pausedStream([aPet(1)], [aPet(2)]);
        const adding = store().pets.addStream(stream.batches);
        await stream.firstTaken;
        await store().pets.addAll([aPet(1, { name: 'first' })]);
        stream.release();
        assertMatches(await adding, { ok: false, error: { code: 'duplicate_pet' } });
        assertMatches((await exported(store().pets)).pets, [{ id: 1n, name: 'first' }]);
      });
    });

    describe('listWithStock: the export', () => {
      it('hands out nothing for an empty store', async () => {
        assert.deepEqual(await exported(store().pets), { pets: [], chunkSizes: [] });
      });

      it('hands out every pet with its stock, by id ascending, every field exact', async () => {
        await store().pets.addAll([
          aPet(INT64_MAX, { quantity: quantity(0), status: 'sold', category: { id: 3n, name: 'Dogs' } }),
          aPet(INT64_MIN, { photoUrls: ['https://example.test/a.jpg'], tags: [{ id: INT64_MAX, name: 'old' }] }),
          aPet(0, { quantity: quantity(2_147_483_647), status: 'pending' }),
        ]);
        assert.deepEqual((await exported(store().pets)).pets, [
          {
            id: INT64_MIN,
            name: `pet ${INT64_MIN}`,
            quantity: 5,
            status: 'available',
            photoUrls: ['https://example.test/a.jpg'],
            tags: [{ id: INT64_MAX, name: 'old' }],
          },
          { id: 0n, name: 'pet 0', quantity: 2_147_483_647, status: 'pending', photoUrls: [], tags: [] },
          {
            id: INT64_MAX,
            name: `pet ${INT64_MAX}`,
            quantity: 0,
            status: 'sold',
            category: { id: 3n, name: 'Dogs' },
            photoUrls: [],
            tags: [],
          },
        ]);
      });

      it('hands out chunks of at most 1,000', async () => {
        const pets = Array.from({ length: 2_500 }, (_, i) => aPet(2_500 - i));
        await store().pets.addStream(streamOf(pets.slice(0, 1_200), pets.slice(1_200)));
        const { pets: all, chunkSizes } = await exported(store().pets);
        assert.deepEqual(chunkSizes, [1_000, 1_000, 500]);
        assert.deepEqual(
          ids(all),
          Array.from({ length: 2_500 }, (_, i) => BigInt(i + 1)),
        );
      });

      it('is what addStream takes back: a round trip into another store loses nothing', async () => {
        await store().pets.addAll([
          aPet(9007199254740993n, { category: { id: INT64_MIN, name: 'Cats' }, tags: [{ id: 1n, name: 'x' }] }),
          aPet(-1, { status: 'pending', photoUrls: ['https://example.test/a', 'http://example.test/b'] }),
        ]);
        const other = await make();
        try {
          assert.deepEqual(await other.pets.addStream(store().pets.listWithStock()), { ok: true, value: 2 });
          assert.deepEqual((await exported(other.pets)).pets, (await exported(store().pets)).pets);
        } finally {
          await other.close();
        }
      });
    });
  });
}
