import { beforeEach, describe, expect, it } from 'vitest';
import { scopeNeeded } from '../../src/adapters/http/operation-scopes.js';
import { MemoryApiKeyStore } from '../../src/adapters/memory/memory-api-key-store.js';
import { MemoryStore } from '../../src/adapters/memory/memory-store.js';
import { NodeKeyCrypto } from '../../src/adapters/system/node-key-crypto.js';
import { Authenticate } from '../../src/application/use-cases/authenticate.js';
import { IssueApiKey } from '../../src/application/use-cases/issue-api-key.js';
import { RollApiKey } from '../../src/application/use-cases/roll-api-key.js';
import { SetKeyExpiry } from '../../src/application/use-cases/set-key-expiry.js';
import { keyScopes, keyStanding } from '../../src/domain/api-key.js';
import { aKeyRecord, ManualClock } from '../../src/testing/index.js';

describe('key standing', () => {
  const key = aKeyRecord('key_a', { expiresAtMs: 1_000 });
  it('is active before its expiry, expired from it on, and revoked whatever its expiry', () => {
    expect(keyStanding(key, 999)).toBe('active');
    expect(keyStanding(key, 1_000)).toBe('expired');
    expect(keyStanding({ ...key, revokedAtMs: 5 }, 1_000)).toBe('revoked');
    expect(keyStanding({ ...key, expiresAtMs: null }, Number.MAX_SAFE_INTEGER)).toBe('active');
  });
});

describe('scopes', () => {
  it('keep the known scopes once each, in a fixed order, and refuse none', () => {
    expect(keyScopes(['inventory:write', 'inventory:read', 'inventory:write'])).toEqual([
      'inventory:read',
      'inventory:write',
    ]);
    expect(() => keyScopes([])).toThrow(RangeError);
  });

  it.each([
    ['GET', 'inventory:read'],
    ['HEAD', 'inventory:read'],
    ['OPTIONS', 'inventory:read'],
    ['PATCH', 'inventory:write'],
    ['POST', 'inventory:write'],
    ['PUT', 'inventory:write'],
    ['DELETE', 'inventory:write'],
  ])('%s needs %s', (method, scope) => {
    expect(scopeNeeded(method)).toBe(scope);
  });
});

describe('key lifecycle use cases', () => {
  let clock: ManualClock;
  let keys: MemoryApiKeyStore;
  let issue: IssueApiKey;
  let roll: RollApiKey;
  let authenticate: Authenticate;
  beforeEach(() => {
    clock = new ManualClock();
    keys = new MemoryApiKeyStore(new MemoryStore());
    const crypto = new NodeKeyCrypto();
    issue = new IssueApiKey(keys, crypto, crypto, clock);
    roll = new RollApiKey(keys, crypto, crypto, clock);
    authenticate = new Authenticate(keys, crypto, clock);
  });

  it('issues a key that expires after a span or at a time, and refuses one born expired', async () => {
    const now = clock.nowMs();
    expect((await issue.execute({ plan: 'free', expires: { inMs: 5_000 } })).record.expiresAtMs).toBe(now + 5_000);
    expect((await issue.execute({ plan: 'free', expires: { atMs: now + 1 } })).record.expiresAtMs).toBe(now + 1);
    await expect(issue.execute({ plan: 'free', expires: { atMs: now } })).rejects.toThrow(RangeError);
    await expect(issue.execute({ plan: 'free', expires: { inMs: 0.5 } })).rejects.toThrow(RangeError);
  });

  it('rolls a key into one of the same name, plan, limits, scopes, expiry and rate-limit subject', async () => {
    const old = await issue.execute({
      plan: 'enterprise',
      limits: { perMinute: 7, perDay: 70 },
      name: 'shop',
      scopes: ['inventory:read'],
      expires: { inMs: 3_600_000 },
      actor: 'alice',
    });
    clock.advance(10);
    const rolled = await roll.execute({ id: old.record.id, graceMs: 60_000, actor: 'bob' });
    if (!rolled.ok) throw new Error(rolled.error.message);
    const { key, record, old: after } = rolled.value;
    expect(record).toMatchObject({
      plan: 'enterprise',
      policy: { perMinute: 7, perDay: 70 },
      name: 'shop',
      scopes: ['inventory:read'],
      familyId: old.record.id,
      rolledFromId: old.record.id,
      expiresAtMs: old.record.expiresAtMs,
      createdAtMs: clock.nowMs(),
    });
    expect(after.expiresAtMs).toBe(clock.nowMs() + 60_000);
    const principals = [await authenticate.execute({ apiKey: key }), await authenticate.execute({ apiKey: old.key })];
    expect(principals.map((p) => (p.ok ? p.value.limitSubject : p.error.code))).toEqual([
      `key:${old.record.id}`,
      `key:${old.record.id}`,
    ]);
  });

  it('never lengthens the old key’s life: a grace past its own expiry keeps the expiry', async () => {
    const old = await issue.execute({ plan: 'free', expires: { inMs: 1_000 } });
    const rolled = await roll.execute({ id: old.record.id, graceMs: 86_400_000, actor: 'bob' });
    expect(rolled.ok && rolled.value.old.expiresAtMs).toBe(old.record.expiresAtMs);
  });

  it('refuses to roll an unknown, revoked or expired key', async () => {
    expect(await roll.execute({ id: 'key_none', graceMs: 0, actor: 'bob' })).toMatchObject({
      ok: false,
      error: { code: 'key_not_found' },
    });
    const expiring = await issue.execute({ plan: 'free', expires: { inMs: 1_000 } });
    const revoked = await issue.execute({ plan: 'free' });
    await keys.revoke(revoked.record.id, { actor: 'bob', atMs: clock.nowMs() });
    clock.advance(1_000);
    for (const id of [expiring.record.id, revoked.record.id]) {
      expect(await roll.execute({ id, graceMs: 0, actor: 'bob' })).toMatchObject({
        ok: false,
        error: { code: 'key_inactive' },
      });
    }
  });

  it('sets a new expiry, ends a key now with a span of 0, and refuses a time in the past', async () => {
    const setExpiry = new SetKeyExpiry(keys, clock);
    const { key, record } = await issue.execute({ plan: 'free' });
    const later = await setExpiry.execute({ id: record.id, expires: { inMs: 60_000 }, actor: 'bob' });
    expect(later.ok && later.value.expiresAtMs).toBe(clock.nowMs() + 60_000);
    expect(
      await setExpiry.execute({ id: record.id, expires: { atMs: clock.nowMs() - 1 }, actor: 'bob' }),
    ).toMatchObject({ ok: false, error: { code: 'invalid_expiry' } });
    expect((await setExpiry.execute({ id: record.id, expires: { inMs: 0 }, actor: 'bob' })).ok).toBe(true);
    expect(await authenticate.execute({ apiKey: key })).toMatchObject({ ok: false, error: { code: 'key_expired' } });
  });
});
