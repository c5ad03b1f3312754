import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_KEY_PATTERN } from '../../src/domain/api-key.js';
import { type CliHarness, cliHarness, expectRefused, START } from './cli-harness.js';

let cli: CliHarness;
beforeEach(async () => {
  cli = await cliHarness();
});
afterEach(async () => {
  await cli.close();
});

const createKey = async (...flags: string[]): Promise<string> => {
  const result = await cli.run('keys', 'create', ...flags);
  expect(result.code).toBe(0);
  return result.stdout.trim();
};

describe('keys create', () => {
  it('prints the new key alone on stdout and stores only its hash, on the plan’s limits', async () => {
    const result = await cli.run('keys', 'create', '--plan', 'free');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^psk_[0-9A-Za-z]{40}\n$/);
    const key = result.stdout.trim();
    const record = await cli.storage.keys.findByHash(cli.crypto.hash(key));
    expect(record).toMatchObject({
      plan: 'free',
      policy: { perMinute: 60, perDay: 1000 },
      name: null,
      scopes: ['inventory:read', 'inventory:write'],
      expiresAtMs: null,
    });
    expect(record?.createdAtMs).toBe(START);
    expect(result.stderr).toContain(`created ${record?.id} on the free plan`);
    const everything = JSON.stringify(cli.tables(), (_name, value: unknown) =>
      typeof value === 'bigint' ? value.toString() : value,
    );
    expect(everything).toContain(cli.crypto.hash(key));
    expect(everything).not.toContain(key);
  });

  it('gives an enterprise key its own limits and a name, taking --label as the name’s older spelling', async () => {
    const key = await createKey(
      '--plan=enterprise',
      '--per-minute',
      '5000',
      '--per-day=2000000',
      '--label',
      'Acme Inc',
    );
    expect(await cli.storage.keys.findByHash(cli.crypto.hash(key))).toMatchObject({
      plan: 'enterprise',
      policy: { perMinute: 5000, perDay: 2_000_000 },
      name: 'Acme Inc',
    });
    const named = await createKey('--plan', 'free', '--name', 'Shop');
    expect((await cli.storage.keys.findByHash(cli.crypto.hash(named)))?.name).toBe('Shop');
  });

  it('makes a different key each time', async () => {
    const keys = [await createKey('--plan', 'pro'), await createKey('--plan', 'business')];
    expect(keys.every((k) => API_KEY_PATTERN.test(k))).toBe(true);
    expect(keys[0]).not.toBe(keys[1]);
  });

  describe('refuses bad input, writing nothing', () => {
    it.each([
      ['no plan', [], 'option --plan is required'],
      ['an unknown plan', ['--plan', 'gold'], '--plan must be one of free, pro, business, enterprise (got "gold")'],
      ['enterprise without limits', ['--plan', 'enterprise'], 'the enterprise plan needs its own limits'],
      [
        'enterprise with one limit',
        ['--plan', 'enterprise', '--per-minute', '10'],
        'give both --per-minute and --per-day',
      ],
      ['limits on a fixed plan', ['--plan', 'free', '--per-day', '5'], 'the free plan has fixed limits'],
      ['a zero limit', ['--plan', 'enterprise', '--per-minute', '0', '--per-day', '5'], '--per-minute must be a whole'],
      ['a fractional limit', ['--plan', 'enterprise', '--per-minute', '5', '--per-day', '1.5'], '--per-day must be'],
      ['an empty label', ['--plan', 'free', '--label', ''], '--label must not be empty'],
      ['a label that is not UTF-8', ['--plan', 'free', '--label', 'Caf\uFFFD'], 'argument 4 is not valid UTF-8 text'],
      ['a name with a line break', ['--plan', 'free', '--name', 'a\nb'], '--name must not hold a control character'],
      ['a name with a right-to-left mark', ['--plan', 'free', '--name', 'a\u200fb'], '--name must not hold a control'],
      [
        'a per-day limit below the per-minute one',
        ['--plan', 'enterprise', '--per-minute', '100', '--per-day', '99'],
        '--per-day (99) must be at least --per-minute (100)',
      ],
      ['an empty name', ['--plan', 'free', '--name', ' '], '--name must not be empty'],
      ['a name and a label', ['--plan', 'free', '--name', 'a', '--label', 'b'], 'give --name or --label'],
      ['no scope', ['--plan', 'free', '--scopes', ','], '--scopes must list one or more of inventory:read'],
      ['an unknown scope', ['--plan', 'free', '--scopes', 'inventory:read,admin'], '(got "inventory:read,admin")'],
      [
        'an expiry without a unit',
        ['--plan', 'free', '--expires-in', '30'],
        '--expires-in must be a whole number with a unit',
      ],
      ['a negative expiry', ['--plan', 'free', '--expires-in', '-1h'], '--expires-in must be a whole number'],
      ['an expiry of 0', ['--plan', 'free', '--expires-in', '0'], '--expires-in must be more than 0 for a new key'],
      ['a huge expiry', ['--plan', 'free', '--expires-in', '36501d'], '--expires-in must be at most 36500d'],
      [
        'a time not RFC 3339',
        ['--plan', 'free', '--expires-at', '2026-13-01'],
        '--expires-at must be an RFC 3339 time',
      ],
      ['a day that does not exist', ['--plan', 'free', '--expires-at', '2026-02-30T00:00:00Z'], 'RFC 3339'],
      [
        'a time in the past',
        ['--plan', 'free', '--expires-at', '2026-01-02T03:04:05Z'],
        '--expires-at must be after now',
      ],
      [
        'both kinds of expiry',
        ['--plan', 'free', '--expires-in', '1h', '--expires-at', '2027-01-01T00:00:00Z'],
        'give --expires-in or --expires-at, not both',
      ],
      ['an empty actor', ['--plan', 'free', '--actor', ''], '--actor must be 1 to 200 characters'],
      ['an actor with a line break', ['--plan', 'free', '--actor', 'a\nb'], '--actor must be'],
      ['an unknown option', ['--plan', 'free', '--owner', 'x'], 'unknown option --owner for "keys create"'],
      ['a repeated option', ['--plan', 'free', '--plan', 'pro'], 'option --plan is given twice'],
      ['an option without a value', ['--plan'], 'option --plan needs a value'],
      ['a stray argument', ['--plan', 'free', 'extra'], '"keys create" takes no arguments, got extra'],
    ])('%s', async (_case, flags, fragment) => {
      await expectRefused(cli, ['keys', 'create', ...flags], fragment);
    });
  });
});

describe('keys list', () => {
  it('prints a table for a person: a header, then a tab-separated line a key, oldest first', async () => {
    await createKey('--plan', 'free', '--name', 'mobile app', '--scopes', 'inventory:read');
    cli.clock.advance(60_000);
    await createKey('--plan', 'enterprise', '--per-minute', '7', '--per-day', '70', '--expires-in', '30d');
    const result = await cli.run('keys', 'list');
    expect(result.code).toBe(0);
    const rows = result.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t').slice(1));
    expect(rows).toEqual([
      ['NAME', 'PLAN', 'LIMITS', 'SCOPES', 'CREATED', 'EXPIRES', 'LAST USED', 'REVOKED'],
      ['mobile app', 'free', '60/min 1000/day', 'inventory:read', '2026-01-02T03:04:05.000Z', 'never', 'never', '-'],
      [
        '-',
        'enterprise',
        '7/min 70/day',
        'inventory:read,inventory:write',
        '2026-01-02T03:05:05.000Z',
        '2026-02-01T03:05:05.000Z',
        'never',
        '-',
      ],
    ]);
  });

  it('prints one JSON object a key with --json, oldest first, with limits and times, never the key', async () => {
    const free = await createKey('--plan', 'free', '--label', 'mobile app');
    cli.clock.advance(60_000);
    await createKey('--plan', 'enterprise', '--per-minute', '7', '--per-day', '70');
    const result = await cli.run('keys', 'list', '--json');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('psk_');
    const lines = result.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const id = (await cli.storage.keys.findByHash(cli.crypto.hash(free)))?.id;
    expect(lines).toEqual([
      {
        id,
        name: 'mobile app',
        plan: 'free',
        perMinute: 60,
        perDay: 1000,
        scopes: ['inventory:read', 'inventory:write'],
        createdAt: '2026-01-02T03:04:05.000Z',
        expiresAt: null,
        lastUsedAt: null,
        revokedAt: null,
        rolledFrom: null,
      },
      expect.objectContaining({ plan: 'enterprise', perMinute: 7, perDay: 70, createdAt: '2026-01-02T03:05:05.000Z' }),
    ]);
  });

  it('prints nothing on stdout when there are no keys', async () => {
    expect(await cli.run('keys', 'list')).toEqual({ code: 0, stdout: '', stderr: 'there are no API keys yet\n' });
  });

  it('refuses an argument, and a value given to --json', async () => {
    await expectRefused(cli, ['keys', 'list', '--all'], 'unknown option --all');
    await expectRefused(cli, ['keys', 'list', '--json=yes'], 'option --json takes no value');
    await expectRefused(cli, ['keys', 'list', '--json', '--json'], 'option --json is given twice');
  });
});

describe('keys revoke', () => {
  it('revokes a key named by its id, printing its line with the revocation time', async () => {
    const key = await createKey('--plan', 'free');
    const id = (await cli.storage.keys.findByHash(cli.crypto.hash(key)))?.id as string;
    cli.clock.advance(1_000);
    const result = await cli.run('keys', 'revoke', id);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ id, revokedAt: '2026-01-02T03:04:06.000Z' });
    expect(result.stderr).toBe(`${id} is revoked\n`);
    expect((await cli.storage.keys.findById(id))?.revokedAtMs).toBe(START + 1_000);
  });

  it('revokes a key named by the key itself', async () => {
    const key = await createKey('--plan', 'pro');
    expect((await cli.run('keys', 'revoke', key)).code).toBe(0);
    expect((await cli.storage.keys.findByHash(cli.crypto.hash(key)))?.revokedAtMs).toBe(START);
  });

  it('refuses an unknown id, and never echoes a key it was given', async () => {
    await expectRefused(cli, ['keys', 'revoke', 'key_unknown'], 'no API key has that id or value: key_unknown');
    const stranger = `psk_${'a'.repeat(40)}`;
    const result = await cli.run('keys', 'revoke', stranger);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain(stranger);
  });

  it('refuses a call without the key to revoke', async () => {
    await expectRefused(cli, ['keys', 'revoke'], '"keys revoke" takes ID-OR-KEY, got none');
  });
});
