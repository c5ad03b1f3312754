import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, type ProgramRun, runPetstore } from '../../support/service-process.js';
import { hasPostgresServer, usePostgresServer } from './postgres-fixture.js';

const root = join(import.meta.dirname, '..', '..');
const KEY_LINE = /^psk_[0-9A-Za-z]{40}\n$/;

describe.skipIf(!hasPostgresServer)('the admin CLI with DATABASE_URL', () => {
  const postgres = usePostgresServer();
  let url: string;
  let dir: string;

  beforeAll(async () => {
    // The CLI migrates the database itself, as the service does: it gets a database of its own.
    url = await postgres.server().createDatabase();
    dir = await mkdtemp(join(tmpdir(), 'petstore-pg-cli-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Runs the real program, as `npm run petstore -- <argv>` does, on the PostgreSQL database. */
  const petstore = (...argv: string[]): Promise<ProgramRun> =>
    runPetstore({ DATABASE_URL: url, PETSTORE_ENV: 'production' }, ...argv);

  it('makes, lists and revokes keys in PostgreSQL', async () => {
    const created = await petstore('keys', 'create', '--plan', 'pro', '--label', 'shop');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(KEY_LINE);
    const listed = await petstore('keys', 'list', '--json');
    const key = JSON.parse(listed.stdout) as { id: string };
    expect(key).toMatchObject({ plan: 'pro', name: 'shop', revokedAt: null });
    const revoked = await petstore('keys', 'revoke', key.id);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: key.id, revokedAt: expect.any(String) });
  });

  it('imports and exports pets, imports orders, ids beyond 2^53 exact, and refuses a duplicate writing nothing', async () => {
    const pets = join(dir, 'pets.json');
    await writeFile(pets, '[{"id": 9223372036854775807, "name": "Rex", "quantity": 2, "status": "available"}]');
    expect(await petstore('pets', 'import', pets)).toMatchObject({ code: 0, stdout: '1\n' });
    const orders = join(dir, 'orders.json');
    await writeFile(
      orders,
      '[{"id": 9007199254740995, "petId": 9223372036854775807, "quantity": 1, "shipDate": "2026-03-01T12:00:00Z", "status": "approved", "complete": false}]',
    );
    expect(await petstore('orders', 'import', orders)).toMatchObject({ code: 0, stdout: '1\n' });
    const exported = await petstore('pets', 'export');
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('"id":9223372036854775807');
    expect(exported.stdout).toContain('"quantity":2');
    const again = await petstore('pets', 'import', pets);
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toContain('9223372036854775807');
  });

  it('exits 1 with a message when PostgreSQL cannot be reached', async () => {
    const unreachable = await new Promise<ProgramRun>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts'), 'keys', 'list'], {
        cwd: root,
        env: childEnv({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', PETSTORE_PG_CONNECT_TIMEOUT_MS: '500' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (text: string) => {
        stderr += text;
      });
      child.on('close', (code) => resolve({ code, stdout: '', stderr }));
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/^error: .*PostgreSQL is unavailable/);
  });
});
