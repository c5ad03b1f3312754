import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAdminCommand } from '../../src/adapters/cli/admin-cli.js';
import { type CliHarness, cliHarness, expectRefused } from './cli-harness.js';

let cli: CliHarness;
beforeEach(async () => {
  cli = await cliHarness();
});
afterEach(async () => {
  await cli.close();
});

const COMMANDS = [
  ['keys', 'create'],
  ['keys', 'list'],
  ['keys', 'revoke'],
  ['pets', 'add'],
  ['pets', 'import'],
  ['orders', 'import'],
];

describe('help', () => {
  it.each([['--help'], ['-h'], ['help']])('%s lists every command on stdout', async (word) => {
    const result = await cli.run(word);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    for (const words of COMMANDS) expect(result.stdout).toContain(`  ${words.join(' ')}`);
  });

  it.each(COMMANDS)('%s %s --help explains the command and writes nothing', async (group, verb) => {
    const before = cli.tables();
    const result = await cli.run(group as string, verb as string, '--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Usage: petstore ${group} ${verb}`));
    expect(result.stderr).toBe('');
    expect(cli.tables()).toEqual(before);
  });

  it('answers --help even beside options that would be refused', async () => {
    const result = await cli.run('keys', 'create', '--plan', 'gold', '--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--per-minute N');
  });

  it('documents the JSON Lines output of keys list', async () => {
    expect((await cli.run('keys', 'list', '--help')).stdout).toContain('one JSON object per line');
  });

  it('lists the commands of a group', async () => {
    const result = await cli.run('pets', '--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('  pets add --id N');
    expect(result.stdout).toContain('  pets import FILE.json');
    expect(result.stdout).not.toContain('keys create');
  });
});

describe('commands it does not know', () => {
  it.each([
    ['no command at all', [], 'no command given'],
    ['an unknown group', ['users', 'list'], 'unknown command "users"'],
    ['an unknown verb', ['keys', 'rotate'], 'unknown command "keys rotate"'],
    ['a group alone', ['orders'], '"orders" needs a command'],
  ])('refuses %s with exit code 1', async (_case, argv, fragment) => {
    await expectRefused(cli, argv, fragment);
  });
});

describe('isAdminCommand', () => {
  it('is true for the command groups and the help words', () => {
    for (const argv of [['keys', 'list'], ['pets'], ['orders', 'import', 'x.json'], ['--help'], ['-h'], ['help']]) {
      expect(isAdminCommand(argv)).toBe(true);
    }
  });

  it('is false for anything else', () => {
    for (const argv of [[], ['serve'], ['users'], ['--port', '8080']]) expect(isAdminCommand(argv)).toBe(false);
  });
});
