import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openSqliteStorage } from '../src/adapters/sqlite/sqlite-storage.js';
import { NodeKeyCrypto } from '../src/adapters/system/node-key-crypto.js';
import { systemClock } from '../src/adapters/system/system-clock.js';
import type { NewPet } from '../src/application/ports/pet-catalog.js';
import { IssueApiKey } from '../src/application/use-cases/issue-api-key.js';
import { petId } from '../src/domain/pet-id.js';
import { LIMIT_MAX, rateLimitPolicy } from '../src/domain/plan.js';
import { quantity } from '../src/domain/quantity.js';
import { type ServerProcess, startServer } from './server-process.js';

const ROOT = join(import.meta.dirname, '..');
const MAIN = join(ROOT, 'dist', 'main.js');
/**
 * The V8 flags npm start gives the server (package.json's start script), so that the benchmark runs it
 * as production does; earlier builds get them too, so that an A/B compares the code alone.
 */
export const START_FLAGS: readonly string[] = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }
).scripts.start
  .split(' ')
  .filter((word) => word.startsWith('--') && word !== '--import');
/** Loaded first, as npm start loads it: it starts OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set. */
const TRACING = join(ROOT, 'dist', 'tracing.js');
const BASELINE = join(import.meta.dirname, 'baseline-server.ts');
const PEER = join(import.meta.dirname, 'fastify-peer.ts');
const PROBE = join(import.meta.dirname, 'event-loop-probe.mjs');
const ALLOCATION_PROBE = join(import.meta.dirname, 'allocation-probe.mjs');

/** Pet number i (from 0): ids 1..n, one in a hundred sold out, so every status rule has rows to work on. */
export function benchPet(i: number): NewPet {
  const stock = i % 100;
  return {
    id: petId(BigInt(i + 1)),
    name: `pet ${i + 1}`,
    quantity: quantity(stock),
    status: stock === 0 ? 'sold' : 'available',
  };
}

/**
 * Compiles src/ to dist/, which the service runs from, as `npm start` does. dist/ goes first: the build
 * is incremental and leaves alone an output whose source did not change, so an edited or stale file in
 * dist/ would otherwise be measured in place of what src/ says.
 */
export function buildService(): void {
  rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const build = spawnSync(npm, ['run', '--silent', 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}${build.stderr}`);
}

// Chunks keep the benchmark's own memory small while it writes a million pets.
const ADD_CHUNK = 50_000;

/**
 * Creates the database file at `path` with pets 1..`pets` and one enterprise key whose limits are out of
 * reach, so the limiter admits every benchmark request while still doing all of its work. Resolves to
 * the key.
 */
export async function preparePetstore(path: string, pets: number): Promise<string> {
  const storage = openSqliteStorage({ path });
  try {
    for (let from = 0; from < pets; from += ADD_CHUNK) {
      const chunk = Array.from({ length: Math.min(ADD_CHUNK, pets - from) }, (_, i) => benchPet(from + i));
      const added = await storage.pets.addAll(chunk);
      if (!added.ok) throw new Error(`adding pets failed: ${added.error.message}`);
    }
    const crypto = new NodeKeyCrypto();
    const issued = await new IssueApiKey(storage.keys, crypto, crypto, systemClock).execute({
      plan: 'enterprise',
      limits: rateLimitPolicy(LIMIT_MAX, LIMIT_MAX),
      label: 'bench',
    });
    return issued.key;
  } finally {
    await storage.close();
  }
}

/**
 * Fills a store the way `preparePetstore` does, by an earlier build's own code (its schema, migrations
 * and key format), through the modules of its `dist` folder, in a child process: for an A/B against
 * that build. `open` is JavaScript that opens the store from `storage` (the module at `storagePath`);
 * answers the key it issued. The pets go in chunks, as `preparePetstore` adds them.
 */
function prepareEarlier(dist: string, storagePath: string, open: string, pets: number): string {
  const at = (path: string): string => JSON.stringify(join(dist, path));
  const script = `
    const storage = await (await import(${at(storagePath)})).${open};
    const { petId } = await import(${at('domain/pet-id.js')});
    const { quantity } = await import(${at('domain/quantity.js')});
    const { LIMIT_MAX, rateLimitPolicy } = await import(${at('domain/plan.js')});
    const { NodeKeyCrypto } = await import(${at('adapters/system/node-key-crypto.js')});
    const { systemClock } = await import(${at('adapters/system/system-clock.js')});
    const { IssueApiKey } = await import(${at('application/use-cases/issue-api-key.js')});
    try {
      for (let from = 0; from < ${pets}; from += ${ADD_CHUNK}) {
        const added = await storage.pets.addAll(Array.from({ length: Math.min(${ADD_CHUNK}, ${pets} - from) }, (_, j) => {
          const i = from + j;
          return { id: petId(BigInt(i + 1)), name: 'pet ' + (i + 1), quantity: quantity(i % 100),
            status: i % 100 === 0 ? 'sold' : 'available' };
        }));
        if (!added.ok) throw new Error(added.error.message);
      }
      const crypto = new NodeKeyCrypto();
      const issued = await new IssueApiKey(storage.keys, crypto, crypto, systemClock).execute({
        plan: 'enterprise', limits: rateLimitPolicy(LIMIT_MAX, LIMIT_MAX), label: 'bench',
      });
      process.stdout.write(issued.key);
    } finally {
      await storage.close();
    }`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`preparing a database with ${dist} failed:\n${run.stderr}`);
  return run.stdout.trim();
}

/** `preparePetstore` done by an earlier build's own code (see prepareEarlier): an SQLite file at `path`. */
export const prepareEarlierPetstore = (dist: string, path: string, pets: number): string =>
  prepareEarlier(
    dist,
    'adapters/sqlite/sqlite-storage.js',
    `openSqliteStorage({ path: ${JSON.stringify(path)} })`,
    pets,
  );

/** The same over PostgreSQL: the database at `url`, migrated by that build. */
export const prepareEarlierPostgres = (dist: string, url: string, pets: number): string =>
  prepareEarlier(
    dist,
    'adapters/postgres/postgres-storage.js',
    `openPostgresStorage({ url: ${JSON.stringify(url)} })`,
    pets,
  );

/** This process's environment less whatever would change how a server child behaves. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const kept = Object.entries(process.env).filter(
    ([name]) => !/^(PETSTORE_|REDIS_|OTEL_|DATABASE_URL$|PORT$|HOST$|LOG_LEVEL$|NODE_OPTIONS$)/.test(name),
  );
  return Object.fromEntries(kept);
}

export interface ServiceOptions {
  readonly db: string;
  /** Set: these Node and V8 flags instead of npm start's (an empty list: Node's defaults). */
  readonly nodeFlags?: readonly string[];
  /** Set: run the service built in this folder (an earlier commit's, for an A/B) instead of dist/. */
  readonly dist?: string;
  /** Set: the Redis limiter; unset: the in-process one. */
  readonly redisUrl?: string;
  /** Set (`host:port,...`): the Redis limiter on a Redis Cluster, instead of `redisUrl`. */
  readonly redisClusterNodes?: string;
  /** Set: PostgreSQL for storage instead of the SQLite file `db`. */
  readonly databaseUrl?: string;
  /** Set: run under `node --cpu-prof`, the profile written to this folder when the process exits. */
  readonly profileDir?: string;
  /** Set: load bench/event-loop-probe.mjs, which writes to this file on SIGUSR2 (see latency.ts). */
  readonly probeFile?: string;
  /** Set: load bench/allocation-probe.mjs, which writes to this file on SIGUSR2 (see garbage.ts). */
  readonly allocationFile?: string;
  /** False: PETSTORE_METRICS=off, the service keeps no metrics; on by default, as in production. */
  readonly metrics?: boolean;
  /** Set: traces exported to this OTLP/HTTP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT); unset: no tracing. */
  readonly otlpEndpoint?: string;
  /** Settings of the service's own beyond the ones above (e.g. `PETSTORE_PG_WRITE_LANES`), set last. */
  readonly settings?: Readonly<Record<string, string>>;
}

/**
 * What watches a server: the profiler, the event-loop probe, the allocation probe, or none. The two
 * probes both answer SIGUSR2: one at a time.
 */
export type Watch = Pick<ServiceOptions, 'profileDir' | 'probeFile' | 'allocationFile'>;

export const watching = ({ profileDir, probeFile, allocationFile }: Watch): string[] => [
  ...(profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]),
  ...(probeFile === undefined ? [] : ['--import', PROBE]),
  ...(allocationFile === undefined ? [] : ['--import', ALLOCATION_PROBE]),
];

export const probeEnv = ({ probeFile, allocationFile }: Watch): NodeJS.ProcessEnv => ({
  ...(probeFile === undefined ? {} : { BENCH_PROBE_FILE: probeFile }),
  ...(allocationFile === undefined ? {} : { BENCH_ALLOCATION_FILE: allocationFile }),
});

/**
 * Runs the built service (`node --import dist/tracing.js dist/main.js serve`) on a free port of 127.0.0.1: production (nothing
 * seeded), synchronous FULL, the default log level (one line per request, to a file).
 */
export function startService(name: string, options: ServiceOptions, logFile: string): Promise<ServerProcess> {
  // A build from before tracing (1.1 and older) has no tracing.js: it runs as its own npm start did.
  const tracing = options.dist === undefined ? TRACING : join(options.dist, 'tracing.js');
  return startServer(
    name,
    [
      ...(options.nodeFlags ?? START_FLAGS),
      ...watching(options),
      ...(existsSync(tracing) ? ['--import', tracing] : []),
      options.dist === undefined ? MAIN : join(options.dist, 'main.js'),
      'serve',
    ],
    {
      ...cleanEnv(),
      ...probeEnv(options),
      HOST: '127.0.0.1',
      PORT: '0',
      PETSTORE_ENV: 'production',
      PETSTORE_DB: options.db,
      PETSTORE_SYNCHRONOUS: 'FULL',
      LOG_LEVEL: 'info',
      ...(options.metrics === false ? { PETSTORE_METRICS: 'off' } : {}),
      ...(options.otlpEndpoint === undefined ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: options.otlpEndpoint }),
      // A benchmark waits on purpose: with the default 100 ms a stall of this busy machine would hand
      // decisions to the in-process fallback, and the figures would no longer be the Redis limiter's.
      ...(options.redisUrl === undefined ? {} : { REDIS_URL: options.redisUrl, REDIS_COMMAND_TIMEOUT_MS: '5000' }),
      ...(options.redisClusterNodes === undefined
        ? {}
        : { REDIS_CLUSTER_NODES: options.redisClusterNodes, REDIS_COMMAND_TIMEOUT_MS: '5000' }),
      // Likewise the wait for a pooled connection: 50 connections of load share a pool of 10, and on this
      // busy machine the slowest writes kept some requests waiting past the default 2 s (503).
      ...(options.databaseUrl === undefined
        ? {}
        : { DATABASE_URL: options.databaseUrl, PETSTORE_PG_CONNECT_TIMEOUT_MS: '10000' }),
      ...options.settings,
    },
    logFile,
  );
}

/** Runs the bare Koa baseline, answering GET /v1/inventory with the bytes in `bodyFile`. */
export function startBaseline(
  name: string,
  bodyFile: string,
  logFile: string,
  watch: Watch = {},
): Promise<ServerProcess> {
  return startServer(
    name,
    [...watching(watch), '--import', 'tsx', BASELINE, bodyFile],
    { ...cleanEnv(), ...probeEnv(watch) },
    logFile,
  );
}

/** The files of the Fastify peer: the items it is seeded with, its database and its access log. */
export interface PeerFiles {
  readonly items: string;
  readonly db: string;
  readonly accessLog: string;
}

/**
 * The items of the list the service answers for a store `preparePetstore` filled with `pets` pets, as
 * JSON: what the Fastify peer is seeded with, written before the service answers (so that the two can
 * start together); the suite checks the peer's list against the service's bytes.
 */
export const benchItemsJson = (pets: number): string =>
  JSON.stringify(
    Array.from({ length: pets }, (_, i) => {
      const pet = benchPet(i);
      return {
        petId: Number(pet.id),
        quantity: pet.quantity,
        reserved: 0,
        available: pet.quantity,
        status: pet.status,
      };
    }),
  );

/**
 * Runs the Fastify peer (bench/fastify-peer.ts) with npm start's V8 flags, as the service runs, so that
 * a ratio between the two compares their code: seeded with `files.items` and the key `key` (limits out of
 * reach, as the service's benchmark key), its access log in `files.accessLog`.
 */
export function startPeer(
  name: string,
  files: PeerFiles,
  key: string,
  logFile: string,
  watch: Watch = {},
): Promise<ServerProcess> {
  return startServer(
    name,
    [...START_FLAGS, ...watching(watch), '--import', 'tsx', PEER, files.items, files.db, files.accessLog],
    { ...cleanEnv(), ...probeEnv(watch), PEER_API_KEY: key },
    logFile,
  );
}
