import type { ApiKeyStore } from '../../src/application/ports/api-key-store.js';
import type { InventoryRepository } from '../../src/application/ports/inventory-repository.js';
import type { OrderBook } from '../../src/application/ports/order-book.js';
import type { PetCatalog } from '../../src/application/ports/pet-catalog.js';
import type { StockChangeLog } from '../../src/application/ports/stock-change-log.js';
import type { InventoryItem } from '../../src/domain/inventory-item.js';

/** The storage ports of one adapter, sharing one store, as the composition root wires them. */
export interface StorageFixture {
  readonly inventory: InventoryRepository;
  readonly changes: StockChangeLog;
  readonly pets: PetCatalog;
  readonly orders: OrderBook;
  readonly keys: ApiKeyStore;
  close(): Promise<void>;
}

/** Makes a fresh, empty store for each test. */
export type MakeStorage = () => Promise<StorageFixture>;

/** Drains a chunked list into one array, keeping the chunks' sizes for the checks that need them. */
export async function drain(
  chunks: AsyncIterable<readonly InventoryItem[]>,
): Promise<{ items: InventoryItem[]; chunkSizes: number[] }> {
  const items: InventoryItem[] = [];
  const chunkSizes: number[] = [];
  for await (const chunk of chunks) {
    chunkSizes.push(chunk.length);
    items.push(...chunk);
  }
  return { items, chunkSizes };
}
