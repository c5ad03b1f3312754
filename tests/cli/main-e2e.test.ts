import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { petId } from '../../src/domain/pet-id.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';
import type { CliRun } from './cli-harness.js';

const KEY_LINE = /^psk_[0-9A-Za-z]{40}\n$/;

let temp: TempDatabase;
beforeEach(async () => {
  temp = await tempDatabase();
});
afterEach(async () => {
  await temp.remove();
});

/** Runs the real program, as `npm run petstore -- <argv>` does, on the temporary database. */
function petstore(...argv: string[]): Promise<CliRun> {
  return petstoreWith([], ...argv);
}

/** Runs the real program with Node options before it, such as a smaller heap. */
function petstoreWith(nodeOptions: readonly string[], ...argv: string[]): Promise<CliRun> {
  const { REDIS_URL: _redis, ...env } = process.env;
  const child = spawn(process.execPath, [...nodeOptions, '--import', 'tsx', 'src/main.ts', ...argv], {
    cwd: process.cwd(),
    env: { ...env, PETSTORE_DB: temp.path, PETSTORE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** What the database holds, read through the storage adapter once the program has exited. */
async function stored(): Promise<{ keys: number; pets: bigint[]; orders: bigint[] }> {
  const storage = openSqliteStorage({ path: temp.path });
  try {
    const pets: bigint[] = [];
    for await (const chunk of storage.inventory.list()) pets.push(...chunk.map((i) => i.petId));
    return {
      keys: (await storage.keys.list()).length,
      pets,
      orders: (await storage.orders.list()).map((o) => o.id),
    };
  } finally {
    await storage.close();
  }
}

const fileInTemp = async (name: string, content: string): Promise<string> => {
  const path = join(temp.dir, name);
  await writeFile(path, content);
  return path;
};

describe('the petstore program run as a process', () => {
  it('keys create --plan free prints one key and nothing else on stdout', async () => {
    const result = await petstore('keys', 'create', '--plan', 'free');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(KEY_LINE);
    expect((await stored()).keys).toBe(1);
  });

  it('keys list --json prints a JSON line a key, and keys revoke revokes one by its id', async () => {
    expect((await petstore('keys', 'create', '--plan', 'pro', '--label', 'shop')).code).toBe(0);
    const listed = await petstore('keys', 'list', '--json');
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain('psk_');
    const key = JSON.parse(listed.stdout) as { id: string; plan: string; name: string; revokedAt: string | null };
    expect(key).toMatchObject({ plan: 'pro', name: 'shop', revokedAt: null });
    const revoked = await petstore('keys', 'revoke', key.id);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: key.id, revokedAt: expect.any(String) });
  });

  it('pets add, pets import and orders import store ids beyond 2^53 exactly', async () => {
    const added = await petstore('pets', 'add', '--id', '9223372036854775807', '--name', 'Rex', '--quantity', '2');
    expect(added).toMatchObject({
      code: 0,
      stdout: '{"id":9223372036854775807,"name":"Rex","quantity":2,"status":"available"}\n',
    });
    const pets = await fileInTemp(
      'pets.json',
      '[{"id": 9007199254740993, "name": "Tom", "quantity": 1, "status": "pending"}]',
    );
    expect(await petstore('pets', 'import', pets)).toMatchObject({ code: 0, stdout: '1\n' });
    const orders = await fileInTemp(
      'orders.json',
      '[{"id": 9007199254740995, "petId": 9007199254740993, "quantity": 1, "shipDate": "2026-03-01T12:00:00Z", "status": "approved", "complete": false}]',
    );
    expect(await petstore('orders', 'import', orders)).toMatchObject({ code: 0, stdout: '1\n' });
    expect(await stored()).toEqual({
      keys: 0,
      pets: [9007199254740993n, 9223372036854775807n],
      orders: [9007199254740995n],
    });
    const storage = openSqliteStorage({ path: temp.path });
    expect((await storage.pets.get(petId(9007199254740993n)))?.name).toBe('Tom');
    await storage.close();
  });

  it.each([
    ['an unknown plan', ['keys', 'create', '--plan', 'gold'], 'got "gold"'],
    ['a non-int64 id', ['pets', 'add', '--id', '9223372036854775808', '--name', 'Rex'], '--id must be a whole number'],
    ['an unknown command', ['pets', 'sell'], 'unknown command "pets sell"'],
  ])('refuses %s: exit code 1, one line on stderr, nothing written', async (_case, argv, fragment) => {
    const result = await petstore(...argv);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/^error: [^\n]+\n$/);
    expect(result.stderr).toContain(fragment);
    expect(await stored()).toEqual({ keys: 0, pets: [], orders: [] });
  });

  it('refuses an argument that is not UTF-8, as it refuses a file holding the same bytes', async () => {
    // Only a shell can hand a program such bytes: Node's own spawn takes arguments as strings.
    const run = spawn(
      'bash',
      ['-c', `exec "$0" --import tsx src/main.ts pets add --id 1 --name $'Caf\\xe9'`, process.execPath],
      {
        cwd: process.cwd(),
        env: { ...process.env, PETSTORE_DB: temp.path, PETSTORE_ENV: 'production', REDIS_URL: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    run.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    const code = await new Promise((resolve) => run.on('close', resolve));
    expect({ code, stderr }).toEqual({
      code: 1,
      stderr: 'error: argument 4 is not valid UTF-8 text for "pets add"; run "pets add --help"\n',
    });
    expect((await stored()).pets).toEqual([]);
  });

  it('refuses a file with a duplicate id, writing none of its pets', async () => {
    const pets = await fileInTemp(
      'pets.json',
      '[{"id": 1, "name": "a", "quantity": 1, "status": "available"}, {"id": 1, "name": "b", "quantity": 1, "status": "available"}]',
    );
    const result = await petstore('pets', 'import', pets);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toContain('pet id 1 is given twice');
    expect(await stored()).toEqual({ keys: 0, pets: [], orders: [] });
  });

  it('pets export writes what pets import reads back, ids beyond 2^53 exact', async () => {
    const pets = await fileInTemp(
      'pets.json',
      '[{"id": 9223372036854775807, "name": "Rex", "quantity": 2, "status": "available", "tags": [{"id": -9223372036854775808, "name": "calm"}]},' +
        '{"id": 9007199254740993, "name": "Tom", "quantity": 0, "status": "sold", "category": {"id": 9007199254740995, "name": "Cats"}}]',
    );
    expect(await petstore('pets', 'import', pets)).toMatchObject({ code: 0, stdout: '2\n' });
    const exported = await petstore('pets', 'export');
    expect(exported).toEqual({
      code: 0,
      stdout:
        '[\n{"id":9007199254740993,"name":"Tom","quantity":0,"status":"sold","category":{"id":9007199254740995,"name":"Cats"}},\n' +
        '{"id":9223372036854775807,"name":"Rex","quantity":2,"status":"available","tags":[{"id":-9223372036854775808,"name":"calm"}]}\n]\n',
      stderr: 'exported 2 pets\n',
    });
  });

  it('refuses a pet name of 100 MB within a 48 MB heap, where reading the file whole ran out of memory', async () => {
    const path = join(temp.dir, 'huge.json');
    const out = createWriteStream(path);
    out.write('[{"id": 1, "quantity": 1, "status": "available", "name": "');
    const megabyte = Buffer.alloc(1024 * 1024, 0x6e);
    for (let i = 0; i < 100; i += 1) {
      if (!out.write(megabyte)) await once(out, 'drain');
    }
    out.end('"}]');
    await once(out, 'finish');
    const result = await petstoreWith(['--max-old-space-size=48'], 'pets', 'import', path);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toBe(
      `error: ${path} holds more than an import takes: A string longer than 65536 bytes at byte 57 ([0].name)\n`,
    );
    expect(await stored()).toEqual({ keys: 0, pets: [], orders: [] });
  });
});

/** Runs the program with its stdout a pipe whose reader has already gone, as `petstore ... | head` ends. */
function petstoreIntoClosedPipe(...argv: string[]): Promise<CliRun> {
  const { REDIS_URL: _redis, ...env } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...argv], {
    cwd: process.cwd(),
    env: { ...env, PETSTORE_DB: temp.path, PETSTORE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Closed before the program can start: its first write meets EPIPE.
  child.stdout.destroy();
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout: '', stderr }));
  });
}

describe('a list read by a reader that stops early (petstore ... | head)', () => {
  beforeEach(async () => {
    expect((await petstore('keys', 'create', '--plan', 'free')).code).toBe(0);
    expect((await petstore('pets', 'add', '--id', '1', '--name', 'Rex')).code).toBe(0);
    expect(
      (await petstore('webhooks', 'add', '--url', 'https://93.184.216.34/hook', '--events', 'inventory.updated')).code,
    ).toBe(0);
  });

  it.each([
    ['keys', 'list'],
    ['webhooks', 'list'],
    ['pets', 'export'],
    ['keys', 'create', '--plan', 'free'],
  ])('%s %s ends with exit code 0, without `error: write EPIPE`', async (...argv) => {
    const result = await petstoreIntoClosedPipe(...argv);
    expect(result.stderr).not.toMatch(/error/);
    expect(result.code).toBe(0);
  });
});
