import { afterEach, beforeEach, describe, it } from 'vitest';
import { CachedApiKeyStore } from '../../src/adapters/api-keys/cached-api-key-store.js';
import { createMemoryAdapters } from '../../src/adapters/memory/memory-adapters.js';
import { MemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.js';
import {
  describeApiKeyStoreContract,
  describeRateLimiterContract,
  describeStorageContract,
  type MakeStorage,
  ManualClock,
} from '../../src/testing/index.js';

const runner = { describe, it, beforeEach, afterEach };

const makeMemory: MakeStorage = async () => {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0));
  return { ...createMemoryAdapters(clock), clock, close: async () => {} };
};

describeStorageContract('memory', makeMemory, runner);
// The cache in front of a store must keep the store's contract (its revocations seen at once).
describeApiKeyStoreContract(
  'cached memory',
  async () => {
    const clock = new ManualClock();
    const memory = createMemoryAdapters(clock);
    return {
      ...memory,
      clock,
      keys: new CachedApiKeyStore(memory.keys, new ManualClock(), { ttlMs: 500 }),
      close: async () => {},
    };
  },
  runner,
);
describeRateLimiterContract(
  'memory',
  async (clock, banPolicy) => ({
    limiter: new MemoryRateLimiter(clock, { banPolicy }),
    close: async () => {},
  }),
  runner,
);
