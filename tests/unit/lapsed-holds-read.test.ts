import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryInventoryRepository } from '../../src/adapters/memory/memory-inventory-repository.js';
import { MemoryPetCatalog } from '../../src/adapters/memory/memory-pet-catalog.js';
import { MemoryStore } from '../../src/adapters/memory/memory-store.js';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import type { InventoryRepository } from '../../src/application/ports/inventory-repository.js';
import type { PetCatalog } from '../../src/application/ports/pet-catalog.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { aPet, ManualClock } from '../../src/testing/index.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';

const LIVE = 1_000;
const LAPSED = 2;
const MINUTE = 60_000;

/**
 * Gives pet 1 LIVE holds still held and LAPSED whose time is up, and pet 2 none; then runs `measured`
 * (which counts the reservations the store reads) over a write of each pet. The counts are of what is
 * read, not of time: the cost of a write must not grow with the holds still held.
 */
async function holdsReadByWrites(
  inventory: InventoryRepository,
  pets: PetCatalog,
  clock: ManualClock,
  readsDuring: (work: () => Promise<unknown>) => Promise<number>,
): Promise<{ readonly holdingPet: number; readonly otherPet: number; readonly again: number }> {
  await pets.addAll([aPet(1, { quantity: quantity(LIVE + LAPSED) }), aPet(2)]);
  const reserve = (ttlMs: number, actor: string) =>
    inventory.writeReservation({
      reservation: { kind: 'reserve', petId: petId(1n), quantity: quantity(1), ttlMs },
      actor,
      atMs: clock.nowMs(),
    });
  for (let i = 0; i < LAPSED; i += 1) await reserve(MINUTE, 'key_lapsing');
  for (let i = 0; i < LIVE; i += 1) await reserve(60 * MINUTE, `key_${i % 10}`);
  clock.advance(MINUTE);
  const write = (pet: bigint) =>
    inventory.write({ orders: [{ kind: 'adjust', petId: petId(pet), delta: 1 }], actor: 'key_x', atMs: clock.nowMs() });
  const holdingPet = await readsDuring(() => write(1n));
  const otherPet = await readsDuring(() => write(2n));
  const again = await readsDuring(() => write(1n));
  expect((await inventory.get(petId(1n)))?.item.reserved).toBe(LIVE);
  return { holdingPet, otherPet, again };
}

describe('a write of a pet reads its lapsed holds alone, never the ones still held', () => {
  let temp: TempDatabase | undefined;
  afterEach(async () => {
    await temp?.remove();
    temp = undefined;
  });

  it('in memory', async () => {
    const store = new MemoryStore();
    const clock = new ManualClock();
    let reads = 0;
    const get = store.reservations.get.bind(store.reservations);
    store.reservations.get = (id: string) => {
      reads += 1;
      return get(id);
    };
    const readsDuring = async (work: () => Promise<unknown>) => {
      reads = 0;
      await work();
      return reads;
    };
    const counts = await holdsReadByWrites(
      new MemoryInventoryRepository(store, clock),
      new MemoryPetCatalog(store),
      clock,
      readsDuring,
    );
    expect(counts).toEqual({ holdingPet: LAPSED, otherPet: 0, again: 0 });
  });

  it('in SQLite', async () => {
    temp = await tempDatabase();
    const clock = new ManualClock();
    const storage = openSqliteStorage({ path: temp.path, clock });
    // Every row a statement on reservations hands back, whichever statement it is.
    const statement = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1'));
    const all = statement.all;
    let reads = 0;
    statement.all = function (this: { source: string }, ...args: unknown[]) {
      const rows = all.apply(this, args);
      if (/\bFROM reservations\b/.test(this.source)) reads += rows.length;
      return rows;
    };
    try {
      const readsDuring = async (work: () => Promise<unknown>) => {
        reads = 0;
        await work();
        return reads;
      };
      const counts = await holdsReadByWrites(storage.inventory, storage.pets, clock, readsDuring);
      expect(counts).toEqual({ holdingPet: LAPSED, otherPet: 0, again: 0 });
    } finally {
      statement.all = all;
      await storage.close();
    }
  });
});
