import { describe, expect, it } from 'vitest';
import { createMemoryAdapters } from '../../src/adapters/memory/memory-adapters.js';
import { NodeKeyCrypto } from '../../src/adapters/system/node-key-crypto.js';
import { createInventoryCore, type InventoryCoreOptions } from '../../src/application/inventory-core.js';
import { DEFAULT_HOLD_LIMITS } from '../../src/domain/reservation.js';
import { ManualClock } from '../../src/testing/index.js';

const core = (options?: InventoryCoreOptions) => {
  const clock = new ManualClock();
  const crypto = new NodeKeyCrypto();
  return createInventoryCore(
    { ...createMemoryAdapters(clock), clock, keyGenerator: crypto, keyHasher: crypto },
    options,
  );
};

describe('the core’s settings', () => {
  it('take a positive whole number of milliseconds for idempotency outcomes', () => {
    expect(() => core({ idempotencyTtlMs: 1 })).not.toThrow();
    for (const ttl of [0, 1.5, Number.NaN]) {
      expect(() => core({ idempotencyTtlMs: ttl })).toThrow(
        `idempotencyTtlMs ${ttl} is not a positive whole number of milliseconds`,
      );
    }
  });

  it('take a positive whole number of holds a key, each for whole seconds up to a day', () => {
    expect(() => core({ holdLimits: { perKey: 1, ttlMs: 86_400_000 } })).not.toThrow();
    expect(() => core({ holdLimits: { ...DEFAULT_HOLD_LIMITS, perKey: 0 } })).toThrow(
      'holdLimits.perKey 0 is not a positive whole number',
    );
    expect(() => core({ holdLimits: { ...DEFAULT_HOLD_LIMITS, perKey: 1.5 } })).toThrow('holdLimits.perKey 1.5');
    expect(() => core({ holdLimits: { perKey: 1, ttlMs: 1_500 } })).toThrow(
      'holdLimits.ttlMs 1500 is not a whole number of seconds from 1 to a day',
    );
    expect(() => core({ holdLimits: { perKey: 1, ttlMs: 86_401_000 } })).toThrow('holdLimits.ttlMs 86401000');
  });
});
