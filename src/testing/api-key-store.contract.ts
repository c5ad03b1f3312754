import assert from 'node:assert/strict';
import type { KeyChange, NewApiKey } from '../application/ports/api-key-store.js';
import type { ApiKeyRecord } from '../domain/api-key.js';
import { rateLimitPolicy } from '../domain/plan.js';
import { assertMatches } from './assert-match.js';
import { aKeyRecord } from './mothers.js';
import { freshStorePerTest, type MakeStorage } from './storage-fixture.js';
import { namingRules, type TestRunner } from './test-runner.js';

const hashOf = (n: number): string => n.toString(16).padStart(64, '0');

const T0 = Date.UTC(2026, 0, 1);
const by = (actor: string, atMs: number): KeyChange => ({ actor, atMs });

/** A key to add: a record's fields (a new key is never revoked nor used) and a hash. */
function newKey(record: ApiKeyRecord, hash: string): NewApiKey {
  const { revokedAtMs: _revoked, lastUsedAtMs: _used, ...fields } = record;
  return { ...fields, hash };
}

/**
 * The ApiKeyStore contract, run over every storage adapter: keys found by hash and id with every field
 * kept, revocation, rolls, expiry, last use, and the audit trail of every change.
 *
 * @param adapter - the name the suite is reported under
 * @param make - a fresh, empty store for each test
 * @param runner - the test runner's `{ describe, it, beforeEach, afterEach }` (node:test's or vitest's)
 */
export function describeApiKeyStoreContract(adapter: string, make: MakeStorage, runner: TestRunner): void {
  const { describe, it } = namingRules(runner);
  describe(`ApiKeyStore contract: ${adapter}`, () => {
    const store = freshStorePerTest(make, runner);

    const addKey = async (id: string, n: number, overrides: Partial<ApiKeyRecord> = {}): Promise<ApiKeyRecord> => {
      const record = aKeyRecord(id, { createdAtMs: T0, ...overrides });
      await store().keys.add(newKey(record, hashOf(n)), 'alice');
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
      await store().keys.add(newKey(record, hashOf(1)), 'alice');
      assert.deepEqual(await store().keys.findByHash(hashOf(1)), record);
      assert.deepEqual(await store().keys.findById('key_ent'), record);
    });

    it('finds nothing for an unknown hash or id', async () => {
      assert.equal(await store().keys.findByHash(hashOf(2)), undefined);
      assert.equal(await store().keys.findById('key_none'), undefined);
    });

    it('lists keys oldest first', async () => {
      await addKey('key_b', 2, { createdAtMs: 2 });
      await addKey('key_a', 1, { createdAtMs: 1 });
      assert.deepEqual(
        (await store().keys.list()).map((k) => k.id),
        ['key_a', 'key_b'],
      );
    });

    it('revokes a key once, keeping the first revocation time', async () => {
      await addKey('key_a', 1);
      assert.equal((await store().keys.revoke('key_a', by('bob', 100)))?.revokedAtMs, 100);
      assert.equal((await store().keys.revoke('key_a', by('bob', 200)))?.revokedAtMs, 100);
      assert.equal((await store().keys.findByHash(hashOf(1)))?.revokedAtMs, 100);
    });

    it('answers undefined when revoking an unknown key', async () => {
      assert.equal(await store().keys.revoke('key_none', by('bob', 100)), undefined);
    });

    it('refuses a key whose limits are not its fixed plan’s', async () => {
      const odd = aKeyRecord('key_odd', { plan: 'pro', policy: rateLimitPolicy(1, 1) });
      await assert.rejects(store().keys.add(newKey(odd, hashOf(3)), 'alice'), RangeError);
      assert.equal(await store().keys.findById('key_odd'), undefined);
      assert.deepEqual(await store().keys.auditTrail(10), []);
    });

    it('refuses a second key with the same hash, recording nothing of it', async () => {
      await addKey('key_a', 1);
      await assert.rejects(store().keys.add(newKey(aKeyRecord('key_b'), hashOf(1)), 'alice'));
      assert.deepEqual(
        (await store().keys.list()).map((k) => k.id),
        ['key_a'],
      );
      assert.deepEqual(
        (await store().keys.auditTrail(10)).map((e) => e.keyId),
        ['key_a'],
      );
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
        const rolled = await store().keys.roll(
          { oldId: 'key_a', newKey: next, oldExpiresAtMs: T0 + 20 },
          by('bob', T0 + 10),
        );
        assert.deepEqual(rolled, { ...old, expiresAtMs: T0 + 20 });
        assertMatches(await store().keys.findByHash(hashOf(9)), {
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
        await store().keys.revoke('key_a', by('bob', T0 + 1));
        const roll = (oldId: string) =>
          store().keys.roll(
            { oldId, newKey: rolledFrom(old, 'key_b', T0 + 10), oldExpiresAtMs: T0 + 20 },
            by('bob', T0 + 10),
          );
        assert.equal(await roll('key_a'), undefined);
        assert.equal(await roll('key_x'), undefined);
        assert.equal(await roll('key_none'), undefined);
        assert.equal(await store().keys.findById('key_b'), undefined);
        assert.equal((await store().keys.findById('key_x'))?.expiresAtMs, T0 + 5);
      });
    });

    it('sets the expiry of a key not revoked, and of no other', async () => {
      await addKey('key_a', 1);
      assert.equal((await store().keys.setExpiry('key_a', T0 + 60_000, by('bob', T0)))?.expiresAtMs, T0 + 60_000);
      assert.equal((await store().keys.findByHash(hashOf(1)))?.expiresAtMs, T0 + 60_000);
      await store().keys.revoke('key_a', by('bob', T0 + 1));
      assert.equal(await store().keys.setExpiry('key_a', T0 + 5, by('bob', T0 + 2)), undefined);
      assert.equal(await store().keys.setExpiry('key_none', T0 + 5, by('bob', T0 + 2)), undefined);
      assert.equal((await store().keys.findById('key_a'))?.expiresAtMs, T0 + 60_000);
    });

    it('records the last use of keys, only ever moving it forward, and ignores unknown ids', async () => {
      await addKey('key_a', 1);
      await addKey('key_b', 2);
      await store().keys.recordUses([
        { keyId: 'key_a', atMs: T0 + 100 },
        { keyId: 'key_b', atMs: T0 + 50 },
        { keyId: 'key_none', atMs: T0 },
      ]);
      await store().keys.recordUses([{ keyId: 'key_a', atMs: T0 + 60 }]);
      await store().keys.recordUses([]);
      assert.equal((await store().keys.findById('key_a'))?.lastUsedAtMs, T0 + 100);
      assert.equal((await store().keys.findByHash(hashOf(2)))?.lastUsedAtMs, T0 + 50);
    });

    it('keeps an audit trail of every create, roll, revoke and expiry change, newest first', async () => {
      const old = await addKey('key_a', 1, { expiresAtMs: T0 + 1_000_000 });
      await store().keys.setExpiry('key_a', T0 + 500_000, by('carol', T0 + 1));
      const next = newKey({ ...old, id: 'key_b', rolledFromId: 'key_a', createdAtMs: T0 + 2 }, hashOf(2));
      await store().keys.roll({ oldId: 'key_a', newKey: next, oldExpiresAtMs: T0 + 3_000 }, by('dave', T0 + 2));
      await store().keys.revoke('key_b', by('erin', T0 + 3));
      await store().keys.revoke('key_b', by('erin', T0 + 4));
      const trail = await store().keys.auditTrail(10);
      assert.deepEqual(
        trail.map(({ seq: _seq, ...entry }) => entry),
        [
          { action: 'revoke', keyId: 'key_b', actor: 'erin', atMs: T0 + 3, newKeyId: null, expiresAtMs: null },
          { action: 'roll', keyId: 'key_a', actor: 'dave', atMs: T0 + 2, newKeyId: 'key_b', expiresAtMs: T0 + 3_000 },
          { action: 'expire', keyId: 'key_a', actor: 'carol', atMs: T0 + 1, newKeyId: null, expiresAtMs: T0 + 500_000 },
          { action: 'create', keyId: 'key_a', actor: 'alice', atMs: T0, newKeyId: null, expiresAtMs: T0 + 1_000_000 },
        ],
      );
      const seqs = trail.map((e) => e.seq);
      assert.deepEqual(
        [...seqs].sort((a, b) => b - a),
        seqs,
      );
      assert.equal(new Set(seqs).size, 4);
      assert.deepEqual(await store().keys.auditTrail(2), trail.slice(0, 2));
    });
  });
}
