import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KeyChange, NewApiKey } from '../application/ports/api-key-store.js';
import type { ApiKeyRecord } from '../domain/api-key.js';
import { rateLimitPolicy } from '../domain/plan.js';
import { aKeyRecord } from './mothers.js';
import type { MakeStorage, StorageFixture } from './storage-fixture.js';

const hashOf = (n: number): string => n.toString(16).padStart(64, '0');

const T0 = Date.UTC(2026, 0, 1);
const by = (actor: string, atMs: number): KeyChange => ({ actor, atMs });

/** A key to add: a record's fields (a new key is never revoked nor used) and a hash. */
function newKey(record: ApiKeyRecord, hash: string): NewApiKey {
  const { revokedAtMs: _revoked, lastUsedAtMs: _used, ...fields } = record;
  return { ...fields, hash };
}

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

    const addKey = async (id: string, n: number, overrides: Partial<ApiKeyRecord> = {}): Promise<ApiKeyRecord> => {
      const record = aKeyRecord(id, { createdAtMs: T0, ...overrides });
      await store.keys.add(newKey(record, hashOf(n)), 'alice');
      return record;
    };

    it('finds a key by hash and by id, every field kept', async () => {
      const record = aKeyRecord('key_ent', {
        plan: 'enterprise',
        policy: rateLimitPolicy(5_000, 2_000_000),
        name: 'Acme',
        scopes: ['inventory:read'],
        expiresAtMs: T0 + 86_400_000,
      });
      await store.keys.add(newKey(record, hashOf(1)), 'alice');
      expect(await store.keys.findByHash(hashOf(1))).toEqual(record);
      expect(await store.keys.findById('key_ent')).toEqual(record);
    });

    it('finds nothing for an unknown hash or id', async () => {
      expect(await store.keys.findByHash(hashOf(2))).toBeUndefined();
      expect(await store.keys.findById('key_none')).toBeUndefined();
    });

    it('lists keys oldest first', async () => {
      await addKey('key_b', 2, { createdAtMs: 2 });
      await addKey('key_a', 1, { createdAtMs: 1 });
      expect((await store.keys.list()).map((k) => k.id)).toEqual(['key_a', 'key_b']);
    });

    it('revokes a key once, keeping the first revocation time', async () => {
      await addKey('key_a', 1);
      expect((await store.keys.revoke('key_a', by('bob', 100)))?.revokedAtMs).toBe(100);
      expect((await store.keys.revoke('key_a', by('bob', 200)))?.revokedAtMs).toBe(100);
      expect((await store.keys.findByHash(hashOf(1)))?.revokedAtMs).toBe(100);
    });

    it('answers undefined when revoking an unknown key', async () => {
      expect(await store.keys.revoke('key_none', by('bob', 100))).toBeUndefined();
    });

    it('refuses a key whose limits are not its fixed plan’s', async () => {
      const odd = aKeyRecord('key_odd', { plan: 'pro', policy: rateLimitPolicy(1, 1) });
      await expect(store.keys.add(newKey(odd, hashOf(3)), 'alice')).rejects.toThrow(RangeError);
      expect(await store.keys.findById('key_odd')).toBeUndefined();
      expect(await store.keys.auditTrail(10)).toEqual([]);
    });

    it('refuses a second key with the same hash, recording nothing of it', async () => {
      await addKey('key_a', 1);
      await expect(store.keys.add(newKey(aKeyRecord('key_b'), hashOf(1)), 'alice')).rejects.toThrow();
      expect((await store.keys.list()).map((k) => k.id)).toEqual(['key_a']);
      expect((await store.keys.auditTrail(10)).map((e) => e.keyId)).toEqual(['key_a']);
    });

    describe('rolls', () => {
      const rolledFrom = (old: ApiKeyRecord, id: string, atMs: number): NewApiKey =>
        newKey(
          { ...old, id, familyId: old.familyId, rolledFromId: old.id, createdAtMs: atMs, revokedAtMs: null },
          hashOf(9),
        );

      it('ends the old key’s grace and adds the new key of the same chain, together', async () => {
        const old = await addKey('key_a', 1, { name: 'shop', scopes: ['inventory:read'] });
        const next = rolledFrom(old, 'key_b', T0 + 10);
        const rolled = await store.keys.roll(
          { oldId: 'key_a', newKey: next, oldExpiresAtMs: T0 + 20 },
          by('bob', T0 + 10),
        );
        expect(rolled).toEqual({ ...old, expiresAtMs: T0 + 20 });
        expect(await store.keys.findByHash(hashOf(9))).toMatchObject({
          id: 'key_b',
          familyId: 'key_a',
          rolledFromId: 'key_a',
          name: 'shop',
          scopes: ['inventory:read'],
          expiresAtMs: null,
          revokedAtMs: null,
        });
      });

      it('writes nothing when the old key is unknown, revoked or already expired', async () => {
        const old = await addKey('key_a', 1);
        await addKey('key_x', 2, { expiresAtMs: T0 + 5 });
        await store.keys.revoke('key_a', by('bob', T0 + 1));
        const roll = (oldId: string) =>
          store.keys.roll(
            { oldId, newKey: rolledFrom(old, 'key_b', T0 + 10), oldExpiresAtMs: T0 + 20 },
            by('bob', T0 + 10),
          );
        expect(await roll('key_a')).toBeUndefined();
        expect(await roll('key_x')).toBeUndefined();
        expect(await roll('key_none')).toBeUndefined();
        expect(await store.keys.findById('key_b')).toBeUndefined();
        expect((await store.keys.findById('key_x'))?.expiresAtMs).toBe(T0 + 5);
      });
    });

    it('sets the expiry of a key not revoked, and of no other', async () => {
      await addKey('key_a', 1);
      expect((await store.keys.setExpiry('key_a', T0 + 60_000, by('bob', T0)))?.expiresAtMs).toBe(T0 + 60_000);
      expect((await store.keys.findByHash(hashOf(1)))?.expiresAtMs).toBe(T0 + 60_000);
      await store.keys.revoke('key_a', by('bob', T0 + 1));
      expect(await store.keys.setExpiry('key_a', T0 + 5, by('bob', T0 + 2))).toBeUndefined();
      expect(await store.keys.setExpiry('key_none', T0 + 5, by('bob', T0 + 2))).toBeUndefined();
      expect((await store.keys.findById('key_a'))?.expiresAtMs).toBe(T0 + 60_000);
    });

    it('records the last use of keys, only ever moving it forward, and ignores unknown ids', async () => {
      await addKey('key_a', 1);
      await addKey('key_b', 2);
      await store.keys.recordUses([
        { keyId: 'key_a', atMs: T0 + 100 },
        { keyId: 'key_b', atMs: T0 + 50 },
        { keyId: 'key_none', atMs: T0 },
      ]);
      await store.keys.recordUses([{ keyId: 'key_a', atMs: T0 + 60 }]);
      await store.keys.recordUses([]);
      expect((await store.keys.findById('key_a'))?.lastUsedAtMs).toBe(T0 + 100);
      expect((await store.keys.findByHash(hashOf(2)))?.lastUsedAtMs).toBe(T0 + 50);
    });

    it('keeps an audit trail of every create, roll, revoke and expiry change, newest first', async () => {
      const old = await addKey('key_a', 1, { expiresAtMs: T0 + 1_000_000 });
      await store.keys.setExpiry('key_a', T0 + 500_000, by('carol', T0 + 1));
      const next = newKey({ ...old, id: 'key_b', rolledFromId: 'key_a', createdAtMs: T0 + 2 }, hashOf(2));
      await store.keys.roll({ oldId: 'key_a', newKey: next, oldExpiresAtMs: T0 + 3_000 }, by('dave', T0 + 2));
      await store.keys.revoke('key_b', by('erin', T0 + 3));
      await store.keys.revoke('key_b', by('erin', T0 + 4));
      const trail = await store.keys.auditTrail(10);
      expect(trail.map(({ seq: _seq, ...entry }) => entry)).toEqual([
        { action: 'revoke', keyId: 'key_b', actor: 'erin', atMs: T0 + 3, newKeyId: null, expiresAtMs: null },
        { action: 'roll', keyId: 'key_a', actor: 'dave', atMs: T0 + 2, newKeyId: 'key_b', expiresAtMs: T0 + 3_000 },
        { action: 'expire', keyId: 'key_a', actor: 'carol', atMs: T0 + 1, newKeyId: null, expiresAtMs: T0 + 500_000 },
        { action: 'create', keyId: 'key_a', actor: 'alice', atMs: T0, newKeyId: null, expiresAtMs: T0 + 1_000_000 },
      ]);
      const seqs = trail.map((e) => e.seq);
      expect([...seqs].sort((a, b) => b - a)).toEqual(seqs);
      expect(new Set(seqs).size).toBe(4);
      expect(await store.keys.auditTrail(2)).toEqual(trail.slice(0, 2));
    });
  });
}
