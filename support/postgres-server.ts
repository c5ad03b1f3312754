import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './redis-server.js';

/** A real PostgreSQL server of one test file: its own port, data folder and socket folder. */
export interface PostgresServer {
  /** The URL of the `postgres` database, as the superuser `postgres` (trust authentication, loopback only). */
  readonly url: string;
  readonly port: number;
  /** Makes a new empty database and resolves to its URL. */
  createDatabase(): Promise<string>;
  /** Stops the server (fast shutdown) and removes its folder. */
  stop(): Promise<void>;
  /** Stops the server at once, as a crash would (immediate shutdown: recovery from the WAL on the next start). */
  kill(): Promise<void>;
  /** Starts the server again on the same port and data folder, after `kill` or `stopOnly`. */
  start(): Promise<void>;
  /** Stops the server the clean way (fast shutdown), keeping its data for `start`. */
  stopOnly(): Promise<void>;
}

/** Debian's binaries; PETSTORE_PG_BIN points elsewhere (another version, another system). */
const BIN = process.env.PETSTORE_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const INSTALL = 'install it (Debian/Ubuntu: apt-get install -y postgresql) or set PETSTORE_PG_BIN to its bin folder';
const READY_WITHIN_S = 30;

const isCi = (): boolean => process.env.CI === 'true' || process.env.CI === '1';

/**
 * Whether the PostgreSQL suites can run. Without the server's binaries they are skipped with a warning,
 * except under CI=true, where a missing server throws: CI must never pass by skipping them.
 */
export function postgresServerAvailable(): boolean {
  if (existsSync(join(BIN, 'initdb')) && existsSync(join(BIN, 'pg_ctl'))) return true;
  if (isCi()) throw new Error(`PostgreSQL is not in ${BIN} and CI=true needs the PostgreSQL suites: ${INSTALL}`);
  console.warn(`PostgreSQL suites skipped: no PostgreSQL in ${BIN}; ${INSTALL}.`);
  return false;
}

/** The PostgreSQL server refuses to run as root: as root, its tools run as the `postgres` user. */
const asRoot = (): boolean => process.getuid?.() === 0;

/** The command line that runs one of the server's tools, as `postgres` when this process is root. */
function commandLine(tool: string, args: readonly string[]): [string, string[]] {
  const command = join(BIN, tool);
  return asRoot() ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, [...args]];
}

/**
 * Runs one of the server's tools; throws with its output on failure. Asynchronous, so that a test's
 * own load keeps running while the server stops or starts.
 */
async function run(tool: string, args: readonly string[]): Promise<void> {
  const [file, argv] = commandLine(tool, args);
  const child = spawn(file, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + String(chunk)).slice(-4_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const timer = setTimeout(() => child.kill('SIGKILL'), (READY_WITHIN_S + 10) * 1000);
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  if (code !== 0) throw new Error(`${tool} ${args.join(' ')} failed (${signal ?? `exit code ${code}`}):\n${output}`);
}

/** The uid and gid of the `postgres` user, which must own the folder the server writes. */
function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string): number => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Starts a PostgreSQL server on a free port, with a new cluster (initdb) in a temporary folder; the
 * caller must `stop` it. fsync stays on, as in production; only initdb skips it, since a cluster lost
 * before the first start is simply made again.
 */
export async function startPostgresServer(): Promise<PostgresServer> {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-pg-'));
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  try {
    if (asRoot()) {
      const { uid, gid } = postgresUser();
      await chown(dir, uid, gid);
    }
    await run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }

  let port = 0;
  const launch = (): Promise<void> => {
    // The socket lives in the folder too: no clash with a system server's /var/run/postgresql.
    const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c max_connections=200`;
    return run('pg_ctl', ['-D', data, '-l', log, '-w', '-t', String(READY_WITHIN_S), '-o', options, 'start']);
  };
  for (let attempt = 1; ; attempt += 1) {
    port = await freePort();
    try {
      await launch();
      break;
    } catch (error) {
      // The port may have been taken between the probe and the start.
      if (attempt === 3) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
  const stopArgs = (mode: 'fast' | 'immediate'): string[] => ['-D', data, '-m', mode, '-w', 'stop'];
  const halt = async (mode: 'fast' | 'immediate'): Promise<void> => {
    if (existsSync(join(data, 'postmaster.pid'))) await run('pg_ctl', stopArgs(mode));
  };
  // If the test process dies first, the server must not outlive it; an exit handler can only run synchronously.
  const onExit = (): void => {
    if (!existsSync(join(data, 'postmaster.pid'))) return;
    const [file, argv] = commandLine('pg_ctl', stopArgs('immediate'));
    spawnSync(file, argv, { stdio: 'ignore', timeout: 10_000 });
  };
  process.on('exit', onExit);

  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    async createDatabase() {
      const name = `t_${randomUUID().replaceAll('-', '')}`;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      await halt('fast');
      process.off('exit', onExit);
      await rm(dir, { recursive: true, force: true });
    },
    kill: () => halt('immediate'),
    stopOnly: () => halt('fast'),
    start: launch,
  };
}
