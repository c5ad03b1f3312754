import { ContainerModule } from 'inversify';
import { MemoryApiKeyStore } from '../adapters/memory/memory-api-key-store.js';
import { MemoryInventoryRepository } from '../adapters/memory/memory-inventory-repository.js';
import { MemoryOrderBook } from '../adapters/memory/memory-order-book.js';
import { MemoryPetCatalog } from '../adapters/memory/memory-pet-catalog.js';
import { MemoryRateLimiter } from '../adapters/memory/memory-rate-limiter.js';
import { MemoryStore } from '../adapters/memory/memory-store.js';
import { bindResolved, id, TOKENS } from './tokens.js';

/** Storage in process memory: for tests and embedding; nothing survives a restart. */
export const memoryStorageModule = () =>
  new ContainerModule(({ bind }) => {
    const store = new MemoryStore();
    const inventory = new MemoryInventoryRepository(store);
    bind(id(TOKENS.inventory)).toConstantValue(inventory);
    bind(id(TOKENS.changes)).toConstantValue(inventory);
    bind(id(TOKENS.pets)).toConstantValue(new MemoryPetCatalog(store));
    bind(id(TOKENS.orders)).toConstantValue(new MemoryOrderBook(store));
    bind(id(TOKENS.keys)).toConstantValue(new MemoryApiKeyStore(store));
    bind(id(TOKENS.storageIsEmpty)).toConstantValue(() => store.pets.size === 0 && store.keys.size === 0);
  });

/** The in-process limiter: exact for one process; the default when no REDIS_URL is set. */
export const memoryLimiterModule = () =>
  new ContainerModule((options) => {
    bindResolved(options, TOKENS.limiter, [TOKENS.clock, TOKENS.banPolicy], (clock, banPolicy) => {
      return new MemoryRateLimiter(clock, { banPolicy });
    });
  });
