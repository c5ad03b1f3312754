import { MemoryApiKeyStore } from '../../src/adapters/memory/memory-api-key-store.js';
import { MemoryInventoryRepository } from '../../src/adapters/memory/memory-inventory-repository.js';
import { MemoryOrderBook } from '../../src/adapters/memory/memory-order-book.js';
import { MemoryPetCatalog } from '../../src/adapters/memory/memory-pet-catalog.js';
import { MemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.js';
import { MemoryStore } from '../../src/adapters/memory/memory-store.js';
import { describeApiKeyStoreContract } from './api-key-store.contract.js';
import { describeInventoryRepositoryContract } from './inventory-repository.contract.js';
import { describeOrderBookContract } from './order-book.contract.js';
import { describePetCatalogContract } from './pet-catalog.contract.js';
import { describeRateLimiterContract } from './rate-limiter.contract.js';
import type { MakeStorage } from './storage-fixture.js';

const makeMemory: MakeStorage = async () => {
  const store = new MemoryStore();
  const inventory = new MemoryInventoryRepository(store);
  return {
    inventory,
    changes: inventory,
    pets: new MemoryPetCatalog(store),
    orders: new MemoryOrderBook(store),
    keys: new MemoryApiKeyStore(store),
    close: async () => {},
  };
};

describeInventoryRepositoryContract('memory', makeMemory);
describePetCatalogContract('memory', makeMemory);
describeOrderBookContract('memory', makeMemory);
describeApiKeyStoreContract('memory', makeMemory);
describeRateLimiterContract('memory', async (clock, banPolicy) => ({
  limiter: new MemoryRateLimiter(clock, { banPolicy }),
  close: async () => {},
}));
