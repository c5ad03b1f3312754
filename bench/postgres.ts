import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openPostgresStorage } from '../src/adapters/postgres/postgres-storage.js';
import { NodeKeyCrypto } from '../src/adapters/system/node-key-crypto.js';
import { DEFAULT_SCOPES } from '../src/domain/api-key.js';
import { LIMIT_MAX, rateLimitPolicy } from '../src/domain/plan.js';
import { startPostgresServer } from '../support/postgres-server.js';
import {
  assertNoWarnings,
  both,
  cpuRatios,
  fetchList,
  LIST_PETS,
  LIST_REQUESTS,
  type LoadSettings,
  medianRatio,
  patchRequests,
  roundRatio,
  runPairs,
  type Scenario,
} from './http.js';
import { CONNECTIONS } from './load.js';
import { benchPet, preparePetstore, startBaseline, startService } from './petstore.js';
import { FLOOR, type GroupCommitResult, groupCommitTable, runGroupCommitLoads } from './postgres-group.js';
import { procStatusBytes, type ServerProcess, stopAll } from './server-process.js';
import { count, median, mib, ms, ratio, runs, table } from './stats.js';

const POSTGRES = 'PostgreSQL 15 from Debian (`/usr/lib/postgresql/15/bin`), fsync and synchronous_commit on';

/** A scenario of this suite: the service over one store against the bare Koa baseline. */
export interface StoreScenario extends Scenario {
  readonly store: 'SQLite' | 'PostgreSQL';
}

/** What the suite measured, with its own date and commit: it may be run apart from the other suites. */
export interface PostgresResult {
  readonly date: string;
  readonly commit: string;
  readonly postgres: string;
  readonly scenarios: StoreScenario[];
  readonly list: PostgresListRow;
  /** The writes against PostgreSQL's floor, before and after (absent from runs before group commit). */
  readonly writes?: GroupCommitResult;
}

// Chunks keep the benchmark's own memory small while it writes a million pets.
const ADD_CHUNK = 50_000;

/** The suite's load, and how many pets the memory of a long list is measured with. */
export interface PostgresSettings extends LoadSettings {
  readonly listPets: number;
}

/** The whole list over PostgreSQL, read by one client: how long, and the service's peak resident set. */
export interface PostgresListRow {
  readonly pets: number;
  readonly bytes: number;
  readonly seconds: number;
  readonly peakRssBytes: number | undefined;
}

/**
 * Fills a new PostgreSQL database like the SQLite one of `preparePetstore`: the same pets, and the same
 * key (its hash), so that one load, with one key, runs against either service.
 */
export async function preparePostgres(url: string, key: string, pets: number): Promise<void> {
  const storage = await openPostgresStorage({ url });
  try {
    for (let from = 0; from < pets; from += ADD_CHUNK) {
      const chunk = Array.from({ length: Math.min(ADD_CHUNK, pets - from) }, (_, i) => benchPet(from + i));
      const added = await storage.pets.addAll(chunk);
      if (!added.ok) throw new Error(`adding pets failed: ${added.error.message}`);
    }
    await storage.keys.add(
      {
        id: 'key_bench',
        hash: new NodeKeyCrypto().hash(key),
        plan: 'enterprise',
        policy: rateLimitPolicy(LIMIT_MAX, LIMIT_MAX),
        name: 'bench',
        scopes: DEFAULT_SCOPES,
        familyId: 'key_bench',
        rolledFromId: null,
        createdAtMs: Date.now(),
        expiresAtMs: null,
      },
      'bench',
    );
  } finally {
    await storage.close();
  }
}

/**
 * GET /v1/inventory (100 pets) and PATCH /v1/inventory/{petId} of the service over SQLite and over
 * PostgreSQL (a server of its own, started here from Debian's binaries, fsync on), both with the
 * in-process limiter, each against the bare Koa baseline in the same rounds.
 */
export async function runPostgresSuite(
  dir: string,
  commit: string,
  settings: PostgresSettings,
  earlier: string | undefined,
  progress: (line: string) => void,
): Promise<PostgresResult> {
  const servers: ServerProcess[] = [];
  const postgres = await startPostgresServer();
  const logs = { sqlite: join(dir, 'service-sqlite.log'), postgres: join(dir, 'service-postgres.log') };
  try {
    const key = await preparePetstore(join(dir, 'store-sqlite.db'), LIST_PETS);
    const url = await postgres.createDatabase();
    await preparePostgres(url, key, LIST_PETS);
    const sqlite = await startService('service (SQLite)', { db: join(dir, 'store-sqlite.db') }, logs.sqlite);
    servers.push(sqlite);
    const pg = await startService(
      'service (PostgreSQL)',
      { db: join(dir, 'unused.db'), databaseUrl: url },
      logs.postgres,
    );
    servers.push(pg);
    const body = await fetchList(sqlite, key);
    if ((await fetchList(pg, key)) !== body) throw new Error('the two stores listed different bytes');
    const bodyFile = join(dir, 'inventory-store.json');
    await writeFile(bodyFile, body);
    const baseline = await startBaseline('bare Koa baseline', bodyFile, join(dir, 'baseline-store.log'));
    servers.push(baseline);

    const make = (request: Scenario['request'], store: StoreScenario['store']): StoreScenario => ({
      request,
      store,
      limiter: 'in-process',
      target: 0,
      rounds: [],
    });
    const patches = patchRequests(LIST_PETS, LIST_PETS);
    const pairs = [
      { scenario: make('GET /v1/inventory', 'SQLite'), service: sqlite, requests: LIST_REQUESTS },
      { scenario: make('GET /v1/inventory', 'PostgreSQL'), service: pg, requests: LIST_REQUESTS },
      { scenario: make('PATCH /v1/inventory/{petId}', 'SQLite'), service: sqlite, requests: patches },
      { scenario: make('PATCH /v1/inventory/{petId}', 'PostgreSQL'), service: pg, requests: patches },
    ];
    await runPairs(pairs, baseline, key, settings, progress);
    await assertNoWarnings(sqlite, logs.sqlite);
    await assertNoWarnings(pg, logs.postgres);
    await stopAll(servers.splice(0));
    const writes = await runGroupCommitLoads(
      dir,
      postgres,
      key,
      (url) => preparePostgres(url, key, LIST_PETS),
      join(dir, 'store-sqlite.db'),
      settings,
      earlier,
      progress,
    );
    const list = await measureList(dir, await postgres.createDatabase(), key, settings.listPets, progress);
    return {
      date: new Date().toISOString().slice(0, 10),
      commit,
      postgres: POSTGRES,
      scenarios: pairs.map((p) => p.scenario),
      list,
      writes,
    };
  } finally {
    await stopAll(servers);
    await postgres.stop();
  }
}

/**
 * Lists `pets` pets once through a service over PostgreSQL, reading the answer to its end and keeping
 * none of it: the service's peak resident set (VmHWM, start-up included) shows whether the list streams.
 */
async function measureList(
  dir: string,
  url: string,
  key: string,
  pets: number,
  progress: (line: string) => void,
): Promise<PostgresListRow> {
  await preparePostgres(url, key, pets);
  const service = await startService(
    `service (PostgreSQL, ${pets} pets)`,
    { db: join(dir, 'unused.db'), databaseUrl: url },
    join(dir, 'service-postgres-list.log'),
  );
  try {
    const started = performance.now();
    const response = await fetch(`${service.url}/inventory`, { headers: { authorization: `Bearer ${key}` } });
    if (response.status !== 200 || response.body === null) throw new Error(`the list answered ${response.status}`);
    let bytes = 0;
    for await (const chunk of response.body) bytes += (chunk as Uint8Array).byteLength;
    const row = {
      pets,
      bytes,
      seconds: (performance.now() - started) / 1000,
      peakRssBytes: procStatusBytes(service.pid, 'VmHWM'),
    };
    progress(
      `  list of ${count(pets)} pets over PostgreSQL: ${row.seconds.toFixed(1)} s, peak RSS ${mib(row.peakRssBytes ?? 0)} MiB`,
    );
    return row;
  } finally {
    await stopAll([service]);
  }
}

/**
 * A scenario's figures as table cells: req/s, the median ratio, the ratio in each round, p50, p99,
 * server CPU a request (service / baseline) and the CPU ratio.
 */
export function scenarioCells(s: StoreScenario): string[] {
  const cpu = cpuRatios(s);
  return [
    both(s, (r) => r.rps, count),
    `**${ratio(medianRatio(s))}**`,
    runs(s.rounds.map(roundRatio), ratio),
    both(s, (r) => r.p50Ms, ms),
    both(s, (r) => r.p99Ms, ms),
    both(
      s,
      (r) => r.cpuUsPerRequest,
      (n) => n.toFixed(0),
    ),
    cpu.length === 0 ? 'n/a' : ratio(median(cpu)),
  ];
}

/** The suite's section of bench/README.md, placed at its end. */
export function postgresSection(result: PostgresResult, settings: PostgresSettings, runCommit?: string): string {
  const rows = result.scenarios.map((s) => [s.request, s.store, ...scenarioCells(s)]);
  return [
    '## Storage: PostgreSQL beside SQLite',
    '',
    result.commit === runCommit
      ? `Measured in the run above (commit ${result.commit}).`
      : `Measured by \`npm run bench -- --only=postgres --merge\` on ${result.date} (commit ${result.commit}), apart ` +
        'from the run above; `npm run bench` measures it with the rest.',
    '',
    `- The same load as the HTTP section (autocannon, ${CONNECTIONS} connections, ${settings.seconds} s a run, ${settings.rounds} round(s),`,
    '  each against the bare Koa baseline in the same round), on two services with the in-process limiter:',
    '  one over an SQLite file (synchronous FULL), one over PostgreSQL (`DATABASE_URL`, a pool of 10). The',
    '  wait for a pooled connection is raised from 2 s to 10 s: in a trial run on this busy machine the',
    '  slowest writes kept some of the 50 connections waiting past 2 s, which the service answers 503.',
    `- ${result.postgres}, started by the runner on a free port`,
    '  with its data in a temporary folder, on the same two CPUs as the load generator and the servers.',
    `- ${LIST_PETS} pets, the same in both stores, and one enterprise key, found through the key cache`,
    "  (PETSTORE_KEY_CACHE_MS, 500 ms) in both. A GET reads the store's stamp (over PostgreSQL one query,",
    '  shared by the GETs that arrive while one is under way) and the list itself only when the stamp moved;',
    '  writes over PostgreSQL go in groups (group commit): the writes (stock and reservation) that arrive',
    '  while the groups under way are busy lock and read their rows together, and one statement writes them',
    '  all, with one commit.',
    '',
    table(
      [
        'request',
        'store',
        'req/s (service / baseline)',
        'ratio',
        'ratio in each round',
        'p50 ms',
        'p99 ms',
        'server CPU µs a request',
        'CPU ratio',
      ],
      rows,
    ),
    '',
    ...writesSection(result),
    `The whole list of ${count(result.list.pets)} pets over PostgreSQL, read once by one client: ` +
      `${result.list.seconds.toFixed(1)} s for ${mib(result.list.bytes)} MiB; peak RSS of the service (VmHWM, start-up ` +
      `included): **${result.list.peakRssBytes === undefined ? 'n/a' : `${mib(result.list.peakRssBytes)} MiB`}**. ` +
      'The list is read in keyset pages of 1,000 rows, one query each, no connection held between pages.',
  ].join('\n');
}

/** The writes' part of the section: against the floor, the SQLite PATCH of the same rounds, and before. */
function writesSection(result: PostgresResult): string[] {
  const writes = result.writes;
  if (writes === undefined) return [];
  return [
    "### Writes against PostgreSQL's floor, this build and an earlier one",
    '',
    `Each round runs, in turn: the floor (${FLOOR}, as \`bench/postgres-floor-write.ts\` describes), PATCH`,
    'through HTTP on a service of this build over PostgreSQL (100 pets), the same load on a service of',
    'this build over the SQLite file of the table above (synchronous FULL), then one hot pet (all 50',
    'connections writing pet 1), the same on an earlier build' +
      (writes.earlier === undefined
        ? ' (not run: no `--against=<dist>`)'
        : ` (\`${writes.earlier}\`, its service started with this build's)`) +
      ', and two',
    "instances of this build over one PostgreSQL behind deploy/'s nginx; then reservation writes (each",
    'connection reserves one of a pet and commits it, in turn, the pets restocked first) and GET',
    "/v1/inventory on each build. The earlier build's database is made by its own code (its migrations).",
    'PostgreSQL takes a CHECKPOINT between runs, outside every measurement. Every service has a database of its',
    'own, filled alike. "Ratio to the floor" is each run\'s rate over the floor\'s of the same round (median',
    'of the rounds); "ratio to SQLite PATCH" is each run\'s rate over the PATCH over SQLite of the same round (median of the rounds). CPU',
    "a write: PostgreSQL's processes (its postmaster and children, /proc), and the service's process (both",
    'instances for the two), over the writes answered. "Writes a group commit": the mean size of the groups',
    'the service committed during the run (its `petstore_postgres_group_commit_writes`, read before and after',
    'it); the row with `PETSTORE_PG_WRITE_LANES=2` is this build with two groups under way at once instead of',
    'the default one (a service and a database of its own).',
    '',
    groupCommitTable(writes),
    '',
  ];
}
