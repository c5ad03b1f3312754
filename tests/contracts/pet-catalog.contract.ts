import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { aPet, INT64_MAX, INT64_MIN } from '../support/mothers.js';
import { drain, type MakeStorage, type StorageFixture } from './storage-fixture.js';

/** The PetCatalog contract, run over every storage adapter. */
export function describePetCatalogContract(adapter: string, make: MakeStorage): void {
  describe(`PetCatalog contract: ${adapter}`, () => {
    let store: StorageFixture;
    beforeEach(async () => {
      store = await make();
    });
    afterEach(async () => {
      await store.close();
    });

    it('returns a pet as added, every field kept', async () => {
      const pet = aPet(INT64_MAX, {
        name: 'Rex "the" dog',
        status: 'pending',
        category: { id: 3n, name: 'Dogs' },
        photoUrls: ['https://example.test/rex.jpg'],
        tags: [{ id: 9n, name: 'friendly' }],
      });
      await store.pets.addAll([pet]);
      expect(await store.pets.get(petId(INT64_MAX))).toEqual({
        id: INT64_MAX,
        name: 'Rex "the" dog',
        status: 'pending',
        category: { id: 3n, name: 'Dogs' },
        photoUrls: ['https://example.test/rex.jpg'],
        tags: [{ id: 9n, name: 'friendly' }],
      });
    });

    it('returns a pet without category with empty lists and no category', async () => {
      await store.pets.addAll([aPet(INT64_MIN)]);
      expect(await store.pets.get(petId(INT64_MIN))).toEqual({
        id: INT64_MIN,
        name: `pet ${INT64_MIN}`,
        status: 'available',
        photoUrls: [],
        tags: [],
      });
    });

    it('answers undefined for an unknown id', async () => {
      expect(await store.pets.get(petId(1n))).toBeUndefined();
    });

    it('starts the inventory entry of each pet it adds', async () => {
      await store.pets.addAll([aPet(2, { quantity: quantity(11) })]);
      const { items } = await drain(store.inventory.list());
      expect(items).toEqual([{ petId: 2n, quantity: 11, status: 'available' }]);
    });

    it('adds nothing when an id is given twice in one batch', async () => {
      const result = await store.pets.addAll([aPet(1), aPet(2), aPet(1)]);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error.code).toBe('duplicate_pet');
        expect(result.error.message).toContain('1');
      }
      expect(await store.pets.get(petId(2n))).toBeUndefined();
    });

    it('adds nothing when an id is already stored', async () => {
      await store.pets.addAll([aPet(1)]);
      const result = await store.pets.addAll([aPet(2), aPet(1)]);
      expect(result.ok).toBe(false);
      expect(await store.pets.get(petId(2n))).toBeUndefined();
      const { items } = await drain(store.inventory.list());
      expect(items.map((i) => i.petId)).toEqual([1n]);
    });
  });
}
