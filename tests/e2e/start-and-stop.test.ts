import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PostgresServer, startPostgresServer } from '../../support/postgres-server.js';
import { freePort, type RedisServer, startRedisServer } from '../../support/redis-server.js';
import { childEnv, runPetstore } from '../../support/service-process.js';
import { hasPostgresServer } from '../postgres/postgres-fixture.js';
import { hasRedisServer } from '../redis/redis-fixture.js';
import type { Leftover } from '../support/start-and-stop.js';

const PROGRAM = join(import.meta.dirname, '../support/start-and-stop.ts');
const TRACING = join(import.meta.dirname, '../../src/tracing.ts');

/** How long the program may take to start the service, serve, stop it, run a command and end by itself. */
const EXIT_WITHIN_MS = 30_000;

interface Run {
  /** The exit code, or `undefined` when the program was still running after EXIT_WITHIN_MS. */
  readonly code: number | null | undefined;
  readonly statuses: Record<string, number>;
  readonly adminCode: number;
  readonly leftovers: readonly Leftover[];
  readonly output: string;
}

/**
 * Runs tests/support/start-and-stop.ts with `env` (PORT=0 on 127.0.0.1, production, a key of the store
 * made first with the admin CLI in a process of its own), and answers how it ended and what it found left.
 */
async function startAndStop(env: Record<string, string>, nodeOptions: readonly string[] = []): Promise<Run> {
  const dir = await mkdtemp(join(tmpdir(), 'start-and-stop-'));
  try {
    const base = { PETSTORE_ENV: 'production', ...env };
    const created = await runPetstore(base, 'keys', 'create', '--plan', 'free');
    expect(created.code, created.stderr).toBe(0);
    const report = join(dir, 'report.json');
    const child = spawn(process.execPath, ['--import', 'tsx', ...nodeOptions, PROGRAM], {
      env: childEnv({
        HOST: '127.0.0.1',
        PORT: '0',
        ...base,
        PETSTORE_TEST_KEY: created.stdout.trim(),
        START_AND_STOP_REPORT: report,
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      output += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      output += text;
    });
    const code = await new Promise<number | null | undefined>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(undefined);
      }, EXIT_WITHIN_MS);
      child.once('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    const written = await readFile(report, 'utf8').catch(() => undefined);
    if (written === undefined) throw new Error(`the program wrote no report (exit ${code}):\n${output}`);
    return { code, output, ...(JSON.parse(written) as Omit<Run, 'code' | 'output'>) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The checks every run must pass: it served, stopped, ran the command, left nothing and ended by itself. */
function expectNothingLeft(run: Run): void {
  expect(run.statuses, run.output).toEqual({ livez: 200, readyz: 200, inventory: 200, unauthorized: 401 });
  expect(run.adminCode).toBe(0);
  // Written by the key-use recorder's stop, which runs before the store's.
  const keys = run.output
    .split('\n')
    .filter((line) => line.startsWith('{"id":"key_'))
    .map((line) => JSON.parse(line) as { lastUsedAt: string | null });
  expect(keys.map((key) => key.lastUsedAt === null)).toEqual([false]);
  expect(run.leftovers, JSON.stringify(run.leftovers, null, 2)).toEqual([]);
  // No process.exit in the program: it ends only when nothing holds its event loop.
  expect(run.code, `still running ${EXIT_WITHIN_MS} ms on:\n${run.output}`).toBe(0);
  expect(run.output).toContain('"msg":"stopped"');
}

describe('one lifecycle: the whole service, started and stopped, leaves no timer, socket or thread', () => {
  it('over SQLite and the in-process limiter (the defaults), metrics on a listener of their own', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'start-and-stop-db-'));
    try {
      expectNothingLeft(await startAndStop({ PETSTORE_DB: join(dir, 'petstore.db'), PETSTORE_METRICS_PORT: '0' }));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('with traces exported to a collector that is down: the last spans are lost, the stop is clean', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'start-and-stop-db-'));
    try {
      const run = await startAndStop(
        {
          PETSTORE_DB: join(dir, 'petstore.db'),
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
          // The exporter's own bound on a failing export (10 s by default, retries included).
          OTEL_EXPORTER_OTLP_TIMEOUT: '1000',
        },
        // As npm start runs it: OpenTelemetry started before the service's modules load.
        ['--import', TRACING],
      );
      expectNothingLeft(run);
      expect(run.output).toContain('"msg":"the last spans could not be exported"');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe.skipIf(!hasPostgresServer || !hasRedisServer)('one lifecycle over PostgreSQL and Redis', () => {
  let postgres: PostgresServer;
  let redis: RedisServer;
  beforeAll(async () => {
    [postgres, redis] = await Promise.all([startPostgresServer(), startRedisServer()]);
  });
  afterAll(async () => {
    await Promise.all([postgres?.stop(), redis?.stop()]);
  });

  it('leaves nothing either: the pool, its probe, the group commit and the Redis client are closed', async () => {
    expectNothingLeft(await startAndStop({ DATABASE_URL: await postgres.createDatabase(), REDIS_URL: redis.url }));
  }, 60_000);
});
