import { createMemoryAdapters } from '../../src/adapters/memory/memory-adapters.js';
import { MemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.js';
import { ManualClock } from '../support/manual-clock.js';
import { describeApiKeyStoreContract } from './api-key-store.contract.js';
import { describeInventoryRepositoryContract } from './inventory-repository.contract.js';
import { describeOrderBookContract } from './order-book.contract.js';
import { describePetCatalogContract } from './pet-catalog.contract.js';
import { describeRateLimiterContract } from './rate-limiter.contract.js';
import type { MakeStorage } from './storage-fixture.js';

const makeMemory: MakeStorage = async () => ({
  ...createMemoryAdapters(new ManualClock()),
  close: async () => {},
});

describeInventoryRepositoryContract('memory', makeMemory);
describePetCatalogContract('memory', makeMemory);
describeOrderBookContract('memory', makeMemory);
describeApiKeyStoreContract('memory', makeMemory);
describeRateLimiterContract('memory', async (clock, banPolicy) => ({
  limiter: new MemoryRateLimiter(clock, { banPolicy }),
  close: async () => {},
}));
