import { afterEach, beforeEach, describe, it } from 'vitest';
import { createMemoryAdapters } from '../../src/adapters/memory/memory-adapters.js';
import { MemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.js';
import { CachedApiKeyStore } from '../../src/adapters/shared/cached-api-key-store.js';
import { ManualClock } from '../support/manual-clock.js';
import { describeApiKeyStoreContract } from './api-key-store.contract.js';
import { describeInventoryRepositoryContract } from './inventory-repository.contract.js';
import { describeOrderBookContract } from './order-book.contract.js';
import { describePetCatalogContract } from './pet-catalog.contract.js';
import { describeRateLimiterContract } from './rate-limiter.contract.js';
import { describeReservationHoldsContract } from './reservation-holds.contract.js';
import { describeStockChangeFeedContract } from './stock-change-feed.contract.js';
import type { MakeStorage } from './storage-fixture.js';
import { describeWebhookStoreContract } from './webhook-store.contract.js';

const makeMemory: MakeStorage = async () => {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0));
  return { ...createMemoryAdapters(clock), clock, close: async () => {} };
};

describeInventoryRepositoryContract('memory', makeMemory);
describePetCatalogContract('memory', makeMemory);
describeStockChangeFeedContract('memory', makeMemory);
describeWebhookStoreContract('memory', makeMemory);
describeOrderBookContract('memory', makeMemory);
describeApiKeyStoreContract('memory', makeMemory);
describeReservationHoldsContract('memory', makeMemory, { describe, it, beforeEach, afterEach });
// The cache in front of a store must keep the store's contract (its revocations seen at once).
describeApiKeyStoreContract('cached memory', async () => {
  const clock = new ManualClock();
  const memory = createMemoryAdapters(clock);
  return {
    ...memory,
    clock,
    keys: new CachedApiKeyStore(memory.keys, new ManualClock(), { ttlMs: 500 }),
    close: async () => {},
  };
});
describeRateLimiterContract('memory', async (clock, banPolicy) => ({
  limiter: new MemoryRateLimiter(clock, { banPolicy }),
  close: async () => {},
}));
