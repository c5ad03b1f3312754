import type { InventoryQuery, InventoryRepository } from '../../application/ports/inventory-repository.js';
import type { StockChangeLog } from '../../application/ports/stock-change-log.js';
import { type InventoryItem, inventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { StockChange } from '../../domain/stock-change.js';
import type { MemoryStore, StoredPet } from './memory-store.js';

const CHUNK = 1_000;

const itemOf = (stored: StoredPet): InventoryItem => inventoryItem(stored.pet.id, stored.quantity, stored.pet.status);

/** Stock levels in process memory. Single-threaded JavaScript makes each update atomic. */
export class MemoryInventoryRepository implements InventoryRepository, StockChangeLog {
  constructor(private readonly store: MemoryStore) {}

  async *list(query: InventoryQuery = {}): AsyncIterable<readonly InventoryItem[]> {
    let index = this.store.firstIndexAfter(query.after);
    let left = query.limit ?? Number.POSITIVE_INFINITY;
    while (left > 0) {
      const ids = this.store.sortedIds.slice(index, index + Math.min(CHUNK, left));
      if (ids.length === 0) return;
      const chunk = ids.map((id) => itemOf(this.store.pets.get(id) as StoredPet));
      left -= ids.length;
      yield chunk;
      // Resume after the last id yielded, not at a position: the list may have changed meanwhile.
      index = this.store.firstIndexAfter(ids[ids.length - 1]);
    }
  }

  revision(): string {
    return this.store.petsRevision();
  }

  async update(
    petId: PetId,
    change: (current: InventoryItem) => InventoryItem,
    actor: string,
    atMs: number,
  ): Promise<StockChange | undefined> {
    const stored = this.store.pets.get(petId);
    if (stored === undefined) return undefined;
    const before = itemOf(stored);
    const after = change(before);
    stored.quantity = after.quantity;
    stored.pet = { ...stored.pet, status: after.status };
    this.store.petsWritten();
    const record: StockChange = { before, after, actor, atMs };
    this.store.changes.push(record);
    return record;
  }

  async history(petId: PetId): Promise<readonly StockChange[]> {
    return this.store.changes.filter((c) => c.after.petId === petId);
  }
}
