/**
 * The service over PostgreSQL as built now against an earlier build of it, in the same run: both over
 * one PostgreSQL server and database, each against the bare Koa baseline in alternating rounds (the
 * load and the rounds of the postgres suite). Prints a table; writes nothing.
 * Usage: node --import tsx bench/postgres-ab.ts <earlier dist folder> [seconds] [rounds]
 * An earlier build: check its src out, `npx tsc -p tsconfig.build.json --outDir bench/.out/dist-earlier
 * --tsBuildInfoFile bench/.out/earlier.tsbuildinfo`, then check this commit's src out again.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startPostgresServer } from '../support/postgres-server.js';
import { fetchList, LIST_PETS, LIST_REQUESTS, patchRequests, runPairs } from './http.js';
import { buildService, preparePetstore, startBaseline, startService } from './petstore.js';
import { preparePostgres, type StoreScenario, scenarioCells } from './postgres.js';
import { type ServerProcess, stopAll } from './server-process.js';
import { table } from './stats.js';

const [earlierArg, secondsArg, roundsArg] = process.argv.slice(2);
if (earlierArg === undefined)
  throw new Error('usage: node --import tsx bench/postgres-ab.ts <earlier dist> [s] [rounds]');
const earlier = resolve(earlierArg);
const settings = { seconds: Number(secondsArg ?? '10'), rounds: Number(roundsArg ?? '3'), warmupSeconds: 2 };
const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

buildService();
const dir = await mkdtemp(join(tmpdir(), 'petstore-pg-ab-'));
const postgres = await startPostgresServer();
const servers: ServerProcess[] = [];
try {
  const key = await preparePetstore(join(dir, 'unused.db'), 0);
  const url = await postgres.createDatabase();
  await preparePostgres(url, key, LIST_PETS);
  const options = { db: join(dir, 'unused.db'), databaseUrl: url };
  const before = await startService('earlier build', { ...options, dist: earlier }, join(dir, 'earlier.log'));
  servers.push(before);
  const now = await startService('this build', options, join(dir, 'now.log'));
  servers.push(now);
  const bodyFile = join(dir, 'inventory.json');
  await writeFile(bodyFile, await fetchList(now, key));
  const baseline = await startBaseline('bare Koa baseline', bodyFile, join(dir, 'baseline.log'));
  servers.push(baseline);
  // `store` names the build here: both are over PostgreSQL.
  const make = (request: StoreScenario['request']): StoreScenario => ({
    request,
    store: 'PostgreSQL',
    limiter: 'in-process',
    rounds: [],
  });
  const patches = patchRequests(LIST_PETS, LIST_PETS);
  const pairs = [
    { build: 'earlier', scenario: make('GET /v1/inventory'), service: before, requests: LIST_REQUESTS },
    { build: 'this', scenario: make('GET /v1/inventory'), service: now, requests: LIST_REQUESTS },
    { build: 'earlier', scenario: make('PATCH /v1/inventory/{petId}'), service: before, requests: patches },
    { build: 'this', scenario: make('PATCH /v1/inventory/{petId}'), service: now, requests: patches },
  ];
  await runPairs(pairs, baseline, key, settings, log);
  const rows = pairs.map(({ build, scenario: s }) => [s.request, build, ...scenarioCells(s)]);
  const heading = ['request', 'build', 'req/s (service / baseline)', 'ratio', 'ratio in each round'];
  log(`\n${table([...heading, 'p50 ms', 'p99 ms', 'server CPU µs a request', 'CPU ratio'], rows)}`);
} finally {
  await stopAll(servers);
  await postgres.stop();
  await rm(dir, { recursive: true, force: true });
}
