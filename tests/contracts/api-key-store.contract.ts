import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rateLimitPolicy } from '../../src/domain/plan.js';
import { aKeyRecord } from '../support/mothers.js';
import type { MakeStorage, StorageFixture } from './storage-fixture.js';

const hashOf = (n: number): string => n.toString(16).padStart(64, '0');

/** The ApiKeyStore contract, run over every storage adapter. */
export function describeApiKeyStoreContract(adapter: string, make: MakeStorage): void {
  describe(`ApiKeyStore contract: ${adapter}`, () => {
    let store: StorageFixture;
    beforeEach(async () => {
      store = await make();
    });
    afterEach(async () => {
      await store.close();
    });

    it('finds a key by hash and by id, every field kept', async () => {
      const record = aKeyRecord('key_ent', {
        plan: 'enterprise',
        policy: rateLimitPolicy(5_000, 2_000_000),
        label: 'Acme',
      });
      await store.keys.add({ ...record, hash: hashOf(1) });
      expect(await store.keys.findByHash(hashOf(1))).toEqual(record);
      expect(await store.keys.findById('key_ent')).toEqual(record);
    });

    it('finds nothing for an unknown hash or id', async () => {
      expect(await store.keys.findByHash(hashOf(2))).toBeUndefined();
      expect(await store.keys.findById('key_none')).toBeUndefined();
    });

    it('lists keys oldest first', async () => {
      await store.keys.add({ ...aKeyRecord('key_b', { createdAtMs: 2 }), hash: hashOf(2) });
      await store.keys.add({ ...aKeyRecord('key_a', { createdAtMs: 1 }), hash: hashOf(1) });
      expect((await store.keys.list()).map((k) => k.id)).toEqual(['key_a', 'key_b']);
    });

    it('revokes a key once, keeping the first revocation time', async () => {
      await store.keys.add({ ...aKeyRecord('key_a'), hash: hashOf(1) });
      expect((await store.keys.revoke('key_a', 100))?.revokedAtMs).toBe(100);
      expect((await store.keys.revoke('key_a', 200))?.revokedAtMs).toBe(100);
      expect((await store.keys.findByHash(hashOf(1)))?.revokedAtMs).toBe(100);
    });

    it('answers undefined when revoking an unknown key', async () => {
      expect(await store.keys.revoke('key_none', 100)).toBeUndefined();
    });

    it('refuses a key whose limits are not its fixed plan’s', async () => {
      const odd = aKeyRecord('key_odd', { plan: 'pro', policy: rateLimitPolicy(1, 1) });
      await expect(store.keys.add({ ...odd, hash: hashOf(3) })).rejects.toThrow(RangeError);
      expect(await store.keys.findById('key_odd')).toBeUndefined();
    });

    it('refuses a second key with the same hash', async () => {
      await store.keys.add({ ...aKeyRecord('key_a'), hash: hashOf(1) });
      await expect(store.keys.add({ ...aKeyRecord('key_b'), hash: hashOf(1) })).rejects.toThrow();
      expect((await store.keys.list()).map((k) => k.id)).toEqual(['key_a']);
    });
  });
}
