import { beforeEach, describe, expect, it } from 'vitest';
import { CachedApiKeyStore } from '../../src/adapters/api-keys/cached-api-key-store.js';
import { MemoryApiKeyStore } from '../../src/adapters/memory/memory-api-key-store.js';
import { MemoryStore } from '../../src/adapters/memory/memory-store.js';
import type { ApiKeyStore } from '../../src/application/ports/api-key-store.js';
import { aKeyRecord, ManualClock } from '../../src/testing/index.js';

const HASH = 'a'.repeat(64);
const AT = Date.UTC(2026, 5, 1);
const BY_TEST = { actor: 'test', atMs: AT };

/** Counts the lookups that reach the store behind the cache. */
function counting(inner: ApiKeyStore): { store: ApiKeyStore; reads: () => number } {
  let reads = 0;
  return {
    reads: () => reads,
    store: {
      findByHash: (hash) => {
        reads += 1;
        return inner.findByHash(hash);
      },
      findById: (id) => inner.findById(id),
      add: (key, actor) => inner.add(key, actor),
      list: () => inner.list(),
      revoke: (id, change) => inner.revoke(id, change),
      roll: (roll, change) => inner.roll(roll, change),
      setExpiry: (id, expiresAtMs, change) => inner.setExpiry(id, expiresAtMs, change),
      recordUses: (uses) => inner.recordUses(uses),
      auditTrail: (limit) => inner.auditTrail(limit),
    },
  };
}

describe('CachedApiKeyStore', () => {
  let clock: ManualClock;
  let inner: MemoryApiKeyStore;
  let counted: ReturnType<typeof counting>;
  let cached: CachedApiKeyStore;
  beforeEach(async () => {
    clock = new ManualClock();
    inner = new MemoryApiKeyStore(new MemoryStore());
    await inner.add({ ...aKeyRecord('key_a'), hash: HASH }, 'test');
    counted = counting(inner);
    cached = new CachedApiKeyStore(counted.store, clock, { ttlMs: 500 });
  });

  it('answers a key found by hash from memory for ttlMs, then reads the store again', async () => {
    await cached.findByHash(HASH);
    clock.advance(499);
    await cached.findByHash(HASH);
    expect(counted.reads()).toBe(1);
    clock.advance(1);
    await cached.findByHash(HASH);
    expect(counted.reads()).toBe(2);
  });

  it('sees a revocation made elsewhere once ttlMs has passed, never later', async () => {
    expect((await cached.findByHash(HASH))?.revokedAtMs).toBeNull();
    await inner.revoke('key_a', BY_TEST);
    clock.advance(500);
    expect((await cached.findByHash(HASH))?.revokedAtMs).toBe(AT);
  });

  it('sees a revocation made through it at once', async () => {
    await cached.findByHash(HASH);
    await cached.revoke('key_a', BY_TEST);
    expect((await cached.findByHash(HASH))?.revokedAtMs).toBe(AT);
  });

  it('sees a roll or a new expiry made through it at once', async () => {
    await cached.findByHash(HASH);
    await cached.setExpiry('key_a', AT + 5, BY_TEST);
    expect((await cached.findByHash(HASH))?.expiresAtMs).toBe(AT + 5);
    const newKey = { ...aKeyRecord('key_b', { familyId: 'key_a', rolledFromId: 'key_a' }), hash: 'b'.repeat(64) };
    await cached.roll({ oldId: 'key_a', newKey, oldExpiresAtMs: AT + 1 }, BY_TEST);
    expect((await cached.findByHash(HASH))?.expiresAtMs).toBe(AT + 1);
  });

  it('sees a roll made elsewhere once ttlMs has passed, never later', async () => {
    await cached.findByHash(HASH);
    const newKey = { ...aKeyRecord('key_b', { familyId: 'key_a', rolledFromId: 'key_a' }), hash: 'b'.repeat(64) };
    await inner.roll({ oldId: 'key_a', newKey, oldExpiresAtMs: AT + 1 }, BY_TEST);
    clock.advance(499);
    expect((await cached.findByHash(HASH))?.expiresAtMs).toBeNull();
    clock.advance(1);
    expect((await cached.findByHash(HASH))?.expiresAtMs).toBe(AT + 1);
  });

  it('never remembers an unknown hash, so a key added elsewhere is found on its first use', async () => {
    const other = 'b'.repeat(64);
    expect(await cached.findByHash(other)).toBeUndefined();
    await inner.add({ ...aKeyRecord('key_b'), hash: other }, 'test');
    expect((await cached.findByHash(other))?.id).toBe('key_b');
  });

  it('keeps at most maxEntries keys, forgetting the oldest', async () => {
    const small = new CachedApiKeyStore(counted.store, clock, { ttlMs: 500, maxEntries: 1 });
    const other = 'b'.repeat(64);
    await inner.add({ ...aKeyRecord('key_b'), hash: other }, 'test');
    await small.findByHash(HASH);
    await small.findByHash(other);
    await small.findByHash(HASH);
    expect(counted.reads()).toBe(3);
  });

  it('reads the store every time with ttlMs 0', async () => {
    const uncached = new CachedApiKeyStore(counted.store, clock, { ttlMs: 0 });
    await uncached.findByHash(HASH);
    await uncached.findByHash(HASH);
    expect(counted.reads()).toBe(2);
  });
});
