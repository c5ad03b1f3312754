import { afterEach, beforeEach, describe, it } from 'node:test';
import { createMemoryAdapters } from '../../../src/adapters/memory/memory-adapters.js';
import { MemoryRateLimiter } from '../../../src/adapters/memory/memory-rate-limiter.js';
import {
  describeRateLimiterContract,
  describeStorageContract,
  ManualClock,
  type TestRunner,
} from '../../../src/testing/index.js';

// Run by `node --test` (tests/contracts/node-test-runner.test.ts), not by vitest. Typed, so that the type
// check proves node:test's functions fit the suites' runner without a cast, as vitest's do in memory.test.ts.
const runner: TestRunner = { describe, it, beforeEach, afterEach };

describeStorageContract(
  'memory under node:test',
  async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0));
    return { ...createMemoryAdapters(clock), clock, close: async () => {} };
  },
  runner,
);
describeRateLimiterContract(
  'memory under node:test',
  async (clock, banPolicy) => ({ limiter: new MemoryRateLimiter(clock, { banPolicy }), close: async () => {} }),
  runner,
);
