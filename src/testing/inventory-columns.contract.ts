import assert from 'node:assert/strict';
import { type InventoryColumns, type InventoryQuery, listsColumns } from '../application/ports/inventory-repository.js';
import type { InventoryItem } from '../domain/inventory-item.js';
import { petId } from '../domain/pet-id.js';
import type { PetStatus } from '../domain/pet-status.js';
import { quantity } from '../domain/quantity.js';
import { aPet } from './mothers.js';
import type { StorageFixture } from './storage-fixture.js';
import { namingRules, type TestRunner } from './test-runner.js';

const STATUSES: readonly PetStatus[] = ['available', 'pending', 'sold'];

/** A chunk of columns as the items it stands for. */
const itemsOf = (columns: InventoryColumns): InventoryItem[] =>
  columns.petIds.map((digits, i) => ({
    petId: petId(BigInt(digits)),
    quantity: quantity(columns.quantities[i] as number),
    status: columns.statuses[i] as PetStatus,
    reserved: quantity(columns.reserved[i] as number),
  }));

async function chunks<T>(list: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const chunk of list) out.push(chunk);
  return out;
}

/**
 * The InventoryRepository contract's list by columns (`listColumns`), for a store that declares it:
 * the same entries as `list`, in its order and its chunks, for the whole list, its pages and its
 * filters, with what holds set aside. A store without it passes as it is. Called inside
 * describeInventoryRepositoryContract, with its store.
 */
export function describeInventoryColumnsContract(store: () => StorageFixture, runner: TestRunner): void {
  const { describe, it } = namingRules(runner);
  describe('the list by columns, when the store has one', () => {
    it('answers the entries of list, chunk for chunk, whole, by pages and filtered', async () => {
      const { inventory, pets, clock } = store();
      if (!listsColumns(inventory)) return;
      await pets.addAll([
        aPet(-(2n ** 63n), { quantity: quantity(0), status: 'sold' }),
        ...Array.from({ length: 1_203 }, (_, i) =>
          aPet(i * 3 - 7, { quantity: quantity((i * 31) % 50), status: STATUSES[i % 3] as PetStatus }),
        ),
        aPet(2n ** 63n - 1n, { quantity: quantity(2_147_483_647) }),
      ]);
      const held = await inventory.writeReservation({
        reservation: { kind: 'reserve', petId: petId(2n), quantity: quantity(2), ttlMs: 60_000 },
        actor: 'key_a',
        atMs: clock.nowMs(),
      });
      assert.equal(held.ok, true);
      for (const query of [
        {},
        { after: petId(500n), limit: 1_001 },
        { statuses: ['pending'] },
        { maxAvailable: 3, statuses: ['available', 'sold'] },
      ] satisfies InventoryQuery[]) {
        const byColumns: InventoryItem[][] = (await chunks(inventory.listColumns(query))).map(itemsOf);
        assert.deepEqual(byColumns, await chunks(inventory.list(query)));
      }
    });
  });
}
