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
    expect(record).toMatchObject({ plan: 'free', policy: { perMinute: 60, perDay: 1000 }, label: null });
    expect(record?.createdAtMs).toBe(START);
    expect(result.stderr).toContain(`created ${record?.id} on the free plan`);
    const everything = JSON.stringify(cli.tables(), (_name, value: unknown) =>
      typeof value === 'bigint' ? value.toString() : value,
    );
    expect(everything).toContain(cli.crypto.hash(key));
    expect(everything).not.toContain(key);
  });

  it('gives an enterprise key its own limits and a label, in either option spelling', async () => {
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
      label: 'Acme Inc',
    });
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
      ['a label with a line break', ['--plan', 'free', '--label', 'a\nb'], '--label must not hold a control character'],
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
  it('prints one JSON object a key, oldest first, with limits and times, never the key', async () => {
    const free = await createKey('--plan', 'free', '--label', 'mobile app');
    cli.clock.advance(60_000);
    await createKey('--plan', 'enterprise', '--per-minute', '7', '--per-day', '70');
    const result = await cli.run('keys', 'list');
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
        plan: 'free',
        perMinute: 60,
        perDay: 1000,
        label: 'mobile app',
        createdAt: '2026-01-02T03:04:05.000Z',
        revokedAt: null,
      },
      expect.objectContaining({ plan: 'enterprise', perMinute: 7, perDay: 70, createdAt: '2026-01-02T03:05:05.000Z' }),
    ]);
  });

  it('prints nothing on stdout when there are no keys', async () => {
    expect(await cli.run('keys', 'list')).toEqual({ code: 0, stdout: '', stderr: 'there are no API keys yet\n' });
  });

  it('refuses an argument', async () => {
    await expectRefused(cli, ['keys', 'list', '--all'], 'unknown option --all');
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
