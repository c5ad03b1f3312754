import { userInfo } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliHarness, cliHarness, expectRefused, START } from './cli-harness.js';

let cli: CliHarness;
beforeEach(async () => {
  cli = await cliHarness();
});
afterEach(async () => {
  await cli.close();
});

/** Creates a key through the CLI and answers it and its id. */
async function created(...flags: string[]): Promise<{ key: string; id: string }> {
  const result = await cli.run('keys', 'create', '--plan', 'free', ...flags);
  expect(result.code).toBe(0);
  const key = result.stdout.trim();
  const id = (await cli.storage.keys.findByHash(cli.crypto.hash(key)))?.id as string;
  return { key, id };
}

const iso = (ms: number): string => new Date(ms).toISOString();

describe('keys create with scopes, a name and an expiry', () => {
  it('stores what it was given and says so on stderr', async () => {
    const result = await cli.run(
      'keys',
      'create',
      '--plan',
      'free',
      '--name',
      'kiosk',
      '--scopes',
      'inventory:read',
      '--expires-in',
      '30d',
    );
    expect(result.code).toBe(0);
    const record = await cli.storage.keys.findByHash(cli.crypto.hash(result.stdout.trim()));
    expect(record).toMatchObject({ name: 'kiosk', scopes: ['inventory:read'], expiresAtMs: START + 30 * 86_400_000 });
    expect(result.stderr).toContain('with inventory:read, expiring 2026-02-01T03:04:05.000Z');
  });

  it.each([
    ['2026-03-01T00:00:00Z', Date.UTC(2026, 2, 1)],
    ['2026-03-01t01:30:00.25+01:30', Date.UTC(2026, 2, 1, 0, 0, 0, 250)],
    ['2026-03-01 00:00:00-02:00', Date.UTC(2026, 2, 1, 2)],
  ])('takes the RFC 3339 time %s', async (text, ms) => {
    const { id } = await created('--expires-at', text);
    expect((await cli.storage.keys.findById(id))?.expiresAtMs).toBe(ms);
  });
});

describe('keys roll', () => {
  it('prints the new key alone, keeps the old one working until the grace ends, and records who did it', async () => {
    const old = await created('--name', 'shop', '--scopes', 'inventory:read');
    cli.clock.advance(1_000);
    const result = await cli.run('keys', 'roll', old.id, '--grace', '3s', '--actor', 'alice');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^psk_[0-9A-Za-z]{40}\n$/);
    const next = await cli.storage.keys.findByHash(cli.crypto.hash(result.stdout.trim()));
    expect(next).toMatchObject({ name: 'shop', scopes: ['inventory:read'], familyId: old.id, rolledFromId: old.id });
    expect((await cli.storage.keys.findById(old.id))?.expiresAtMs).toBe(START + 4_000);
    expect(result.stderr).toContain(`rolled ${old.id} into ${next?.id}; ${old.id} works until ${iso(START + 4_000)}`);
  });

  it('gives a day of grace by default, and none with --grace 0', async () => {
    const a = await created();
    const b = await created();
    expect((await cli.run('keys', 'roll', a.id)).code).toBe(0);
    expect((await cli.run('keys', 'roll', b.id, '--grace', '0')).code).toBe(0);
    expect((await cli.storage.keys.findById(a.id))?.expiresAtMs).toBe(START + 86_400_000);
    expect((await cli.storage.keys.findById(b.id))?.expiresAtMs).toBe(START);
  });

  it('refuses an unknown key, a revoked one and a bad grace, writing nothing', async () => {
    const { id } = await created();
    await expectRefused(cli, ['keys', 'roll', 'key_none'], 'no API key has that id: key_none');
    await expectRefused(cli, ['keys', 'roll', id, '--grace', '3'], '--grace must be a whole number with a unit');
    await expectRefused(cli, ['keys', 'roll', id, '--grace', '1.5h'], '--grace must be');
    await expectRefused(cli, ['keys', 'roll'], '"keys roll" takes KEY-ID, got none');
    expect((await cli.run('keys', 'revoke', id)).code).toBe(0);
    await expectRefused(cli, ['keys', 'roll', id], 'the key is revoked or expired');
  });
});

describe('keys expire', () => {
  it('sets a key’s expiry, or ends it now with --expires-in 0', async () => {
    const { id } = await created();
    const later = await cli.run('keys', 'expire', id, '--expires-at', '2026-06-01T00:00:00Z');
    expect(later.code).toBe(0);
    expect(JSON.parse(later.stdout)).toMatchObject({ id, expiresAt: '2026-06-01T00:00:00.000Z' });
    expect((await cli.run('keys', 'expire', id, '--expires-in', '0')).code).toBe(0);
    expect((await cli.storage.keys.findById(id))?.expiresAtMs).toBe(START);
  });

  it('refuses no expiry, a time in the past, an unknown or a revoked key, writing nothing', async () => {
    const { id } = await created();
    await expectRefused(cli, ['keys', 'expire', id], 'give --expires-in or --expires-at');
    await expectRefused(cli, ['keys', 'expire', id, '--expires-at', '2025-01-01T00:00:00Z'], 'must not be before now');
    await expectRefused(cli, ['keys', 'expire', 'key_none', '--expires-in', '1h'], 'no API key has that id');
    expect((await cli.run('keys', 'revoke', id)).code).toBe(0);
    await expectRefused(cli, ['keys', 'expire', id, '--expires-in', '1h'], 'the key is revoked');
  });
});

describe('keys show', () => {
  it('prints one key for a person, or as JSON with --json', async () => {
    const { id } = await created('--name', 'till');
    await cli.storage.keys.recordUses([{ keyId: id, atMs: START + 5_000 }]);
    const card = await cli.run('keys', 'show', id);
    expect(card.code).toBe(0);
    expect(card.stdout.split('\n').slice(0, 9)).toEqual([
      `id:        ${id}`,
      'name:      till',
      'plan:      free',
      'limits:    60/min 1000/day',
      'scopes:    inventory:read,inventory:write',
      `created:   ${iso(START)}`,
      'expires:   never',
      `last used: ${iso(START + 5_000)}`,
      'revoked:   -',
    ]);
    const json = await cli.run('keys', 'show', id, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ id, name: 'till', lastUsedAt: iso(START + 5_000) });
  });

  it('refuses an unknown id', async () => {
    await expectRefused(cli, ['keys', 'show', 'key_none'], 'no API key has that id: key_none');
  });
});

describe('keys audit', () => {
  it('lists every create, roll, expiry change and revoke, newest first, with actor, time and key id', async () => {
    const a = await created('--actor', 'alice');
    cli.clock.advance(1_000);
    expect((await cli.run('keys', 'expire', a.id, '--expires-in', '1h', '--actor', 'bob')).code).toBe(0);
    cli.clock.advance(1_000);
    const rolled = await cli.run('keys', 'roll', a.id, '--grace', '1m', '--actor', 'carol');
    const b = (await cli.storage.keys.findByHash(cli.crypto.hash(rolled.stdout.trim())))?.id as string;
    cli.clock.advance(1_000);
    expect((await cli.run('keys', 'revoke', b)).code).toBe(0);
    const json = await cli.run('keys', 'audit', '--json');
    expect(json.code).toBe(0);
    const entries = json.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.map((e) => [e.action, e.keyId, e.actor, e.at])).toEqual([
      ['revoke', b, userInfo().username, iso(START + 3_000)],
      ['roll', a.id, 'carol', iso(START + 2_000)],
      ['expire', a.id, 'bob', iso(START + 1_000)],
      ['create', a.id, 'alice', iso(START)],
    ]);
    expect(entries[1]).toMatchObject({ newKeyId: b, expiresAt: iso(START + 62_000) });
    const text = await cli.run('keys', 'audit', '--limit', '2');
    expect(text.stdout.trimEnd().split('\n')).toEqual([
      `${iso(START + 3_000)}\t${b}\trevoke\t${userInfo().username}\trevoked`,
      `${iso(START + 2_000)}\t${a.id}\troll\tcarol\trolled into ${b}, which works from now; this key expires ${iso(START + 62_000)}`,
    ]);
  });

  it('says so on stderr when the trail is empty, and refuses a bad limit', async () => {
    expect(await cli.run('keys', 'audit')).toEqual({ code: 0, stdout: '', stderr: 'the audit trail is empty\n' });
    await expectRefused(cli, ['keys', 'audit', '--limit', '0'], '--limit must be a whole number from 1 to 10000');
    await expectRefused(cli, ['keys', 'audit', '--limit', '10001'], '--limit must be');
  });

  it('keeps the trail append-only in the file itself', async () => {
    await created();
    const db = new Database(join(cli.dir, 'petstore.db'));
    try {
      expect(() => db.prepare('DELETE FROM api_key_audit').run()).toThrow('append-only');
      expect(() => db.prepare("UPDATE api_key_audit SET actor = 'x'").run()).toThrow('append-only');
    } finally {
      db.close();
    }
  });
});
