/**
 * The writes of the postgres suite against their baselines, in one run: PostgreSQL's own floor for a
 * write (pgbench), PATCH over PostgreSQL through HTTP on 100 pets and on one hot pet, reservation writes
 * (reserve and commit), the same on an earlier build (`npm run bench -- --only=postgres
 * --against=<dist>`, a folder with an earlier commit's build: "before", its database made by its own
 * code), this build with two lanes of group writes, and two instances over one PostgreSQL behind
 * deploy/'s nginx; and GET /v1/inventory on this
 * build and the earlier one. Each round runs every one of them in turn, and reads PostgreSQL's CPU (its
 * server's processes, /proc) and the service's around each run.
 */
import { join } from 'node:path';
import { startNginx } from '../support/nginx-server.js';
import type { PostgresServer } from '../support/postgres-server.js';
import { LIST_PETS, LIST_REQUESTS, patchRequests } from './http.js';
import { type LoadRequest, type LoadRun, runLoad } from './load.js';
import { prepareEarlierPostgres, startService } from './petstore.js';
import { serverCpuSeconds } from './postgres-cpu.js';
import { CLIENTS, connect, floorWrite } from './postgres-floor-write.js';
import { runReservationLoad } from './postgres-reservations.js';
import { cpuSeconds, type ServerProcess, startTogether, stopAll } from './server-process.js';
import { count, median, ratio, table } from './stats.js';

/** One run: its rate, and PostgreSQL's and the service's CPU µs a request (the service's, all instances). */
export interface WriteRun {
  readonly rps: number;
  readonly postgresUs: number;
  readonly serviceUs: number | undefined;
  /**
   * The mean writes a group commit carried during the run (the services' `petstore_postgres_group_commit_writes`);
   * absent for the floor, and for a build without that metric.
   */
  readonly groupWrites?: number | undefined;
}

/** The sum and count of the group sizes the services have committed so far; NaN from a build without the metric. */
async function groupTotals(servers: readonly ServerProcess[]): Promise<{ sum: number; count: number }> {
  let sum = 0;
  let count = 0;
  for (const server of servers) {
    const text = await (await fetch(`${server.origin}/metrics`)).text();
    const read = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
    sum += read('petstore_postgres_group_commit_writes_sum');
    count += read('petstore_postgres_group_commit_writes_count');
  }
  return { sum, count };
}

/** The runs of each load, by its name, in the order of the rounds. */
export interface GroupCommitResult {
  readonly earlier: string | undefined;
  readonly runs: Record<string, WriteRun[]>;
}

/** 50 connections writing one pet, two quantities in turn. */
export const HOT_PET: readonly LoadRequest[] = [3, 4].map((q) => ({
  method: 'PATCH',
  path: '/v1/inventory/1',
  body: `{"quantity":${q}}`,
}));

const TWO_LANES = 'PATCH, 100 pets, now, PETSTORE_PG_WRITE_LANES=2';

/** The same PATCH load on this build over an SQLite file: the rate the PostgreSQL writes are set beside, round by round. */
export const SQLITE_PATCH = 'PATCH, 100 pets, SQLite, now';

export const FLOOR = `floor: pgbench, read + update/insert, ${CLIENTS} clients`;

/** Each request a reservation write: a reserve of one, then the commit of what it reserved (see runReservationLoad). */
const RESERVE_COMMIT_NOW = 'POST reservation + commit, 100 pets, now';
const RESERVE_COMMIT_BEFORE = 'POST reservation + commit, 100 pets, before';

/**
 * Measures the loads (see the file's comment); `key` is the key every store was prepared with, and
 * `prepare` fills a new database with the suite's pets and key; `sqliteDb`, an SQLite file filled alike.
 */
export async function runGroupCommitLoads(
  dir: string,
  postgres: PostgresServer,
  key: string,
  prepare: (url: string) => Promise<void>,
  sqliteDb: string,
  settings: { readonly seconds: number; readonly rounds: number; readonly warmupSeconds: number },
  earlier: string | undefined,
  progress: (line: string) => void,
): Promise<GroupCommitResult> {
  const servers: ServerProcess[] = [];
  const probe = await connect(await postgres.createDatabase());
  const nginxes: { stop(): Promise<void> }[] = [];
  try {
    // An earlier build's database is made by its own code (its migrations, its key), so that a build
    // older than this one's schema runs too; each server is loaded with its own database's key.
    const keys = new Map<ServerProcess, string>();
    const headersOf = (server: ServerProcess) => ({ authorization: `Bearer ${keys.get(server) ?? key}` });
    // Each build's database is made first; then both services start together (see startTogether).
    const sides: { readonly name: string; readonly dist: string | undefined }[] = [
      { name: 'now', dist: undefined },
      ...(earlier === undefined ? [] : [{ name: 'before', dist: earlier }]),
    ];
    const prepared: { name: string; dist: string | undefined; url: string; ownKey: string | undefined }[] = [];
    for (const { name, dist } of sides) {
      const url = await postgres.createDatabase();
      const ownKey = dist === undefined ? undefined : prepareEarlierPostgres(dist, url, LIST_PETS);
      if (ownKey === undefined) await prepare(url);
      prepared.push({ name, dist, url, ownKey });
    }
    const started = await startTogether(
      servers,
      ...prepared.map(({ name, dist, url }) =>
        startService(
          name,
          { db: join(dir, 'unused.db'), databaseUrl: url, ...(dist === undefined ? {} : { dist }) },
          join(dir, `${name.replace(/\W+/g, '-')}.log`),
        ),
      ),
    );
    started.forEach((server, i) => {
      const ownKey = prepared[i]?.ownKey;
      if (ownKey !== undefined) keys.set(server, ownKey);
    });
    const [now, before] = started;
    if (now === undefined) throw new Error('the service of this build did not start');
    // The second instance shares the first's database: a server of the same URL.
    const twoUrl = await postgres.createDatabase();
    await prepare(twoUrl);
    const pair = await Promise.all(
      ['one of two', 'two of two'].map(async (name) => {
        const server = await startService(
          name,
          { db: join(dir, 'unused.db'), databaseUrl: twoUrl },
          join(dir, `${name.replace(/\W+/g, '-')}.log`),
        );
        servers.push(server);
        return server;
      }),
    );
    // This build with two lanes of group writes (PETSTORE_PG_WRITE_LANES=2, against the default 1):
    // smaller groups, two under way at once, which wait for each other's row locks where they share pets.
    const twoLanesUrl = await postgres.createDatabase();
    await prepare(twoLanesUrl);
    const twoLanes = await startService(
      'now, two lanes',
      { db: join(dir, 'unused.db'), databaseUrl: twoLanesUrl, settings: { PETSTORE_PG_WRITE_LANES: '2' } },
      join(dir, 'now-two-lanes.log'),
    );
    servers.push(twoLanes);
    const overSqlite = await startService('now, SQLite', { db: sqliteDb }, join(dir, 'now-sqlite.log'));
    servers.push(overSqlite);
    const nginx = await startNginx(pair.map((s) => s.origin.replace('http://', '')));
    nginxes.push(nginx);
    // One database for the floor, used again each round (its tables are made once).
    const floorUrl = await postgres.createDatabase();
    const patches = patchRequests(LIST_PETS, LIST_PETS);
    const measured = async (
      server: ServerProcess,
      requests: readonly LoadRequest[] | typeof runReservationLoad,
      seconds: number,
      others: readonly ServerProcess[] = [],
      metered: readonly ServerProcess[] = [server, ...others],
    ): Promise<WriteRun> => {
      const load = (): Promise<LoadRun> =>
        typeof requests === 'function'
          ? requests(server, headersOf(server), seconds)
          : runLoad(server, requests, headersOf(server), seconds);
      // Read outside the CPU's window: a scrape costs the service a little.
      const groups0 = await groupTotals(metered);
      const cpu0 = serverCpuSeconds(probe.postmaster);
      const other0 = others.map((s) => cpuSeconds(s.pid) ?? 0);
      const run = await load();
      const cpu1 = serverCpuSeconds(probe.postmaster);
      const otherUs = others.reduce((sum, s, i) => sum + ((cpuSeconds(s.pid) ?? 0) - (other0[i] ?? 0)) * 1e6, 0);
      const groups1 = await groupTotals(metered);
      const groupWrites = (groups1.sum - groups0.sum) / (groups1.count - groups0.count);
      return {
        rps: run.rps,
        postgresUs: ((cpu1 - cpu0) * 1e6) / run.requests,
        serviceUs: run.cpuUsPerRequest === undefined ? undefined : run.cpuUsPerRequest + otherUs / run.requests,
        ...(Number.isFinite(groupWrites) ? { groupWrites } : {}),
      };
    };
    // Through nginx: the load goes to nginx, and the CPU read is of both instances.
    const viaNginx: ServerProcess = { ...(pair[0] as ServerProcess), origin: nginx.url, name: 'nginx' };
    const loads: [string, () => Promise<WriteRun>][] = [
      [
        FLOOR,
        async () => ({
          ...(await floorWrite(floorUrl, dir, settings.seconds)),
          serviceUs: undefined,
        }),
      ],
      ['PATCH, 100 pets, now', () => measured(now, patches, settings.seconds)],
      [SQLITE_PATCH, () => measured(overSqlite, patches, settings.seconds)],
      [TWO_LANES, () => measured(twoLanes, patches, settings.seconds)],
      ['PATCH, one hot pet, now', () => measured(now, HOT_PET, settings.seconds)],
      [
        'PATCH, 100 pets, two instances behind nginx, now',
        () => measured(viaNginx, patches, settings.seconds, [pair[1] as ServerProcess], pair),
      ],
    ];
    loads.push([RESERVE_COMMIT_NOW, () => measured(now, runReservationLoad, settings.seconds)]);
    loads.push(['GET /v1/inventory, now', () => measured(now, LIST_REQUESTS, settings.seconds)]);
    if (before !== undefined) {
      loads.splice(2, 0, ['PATCH, 100 pets, before', () => measured(before, patches, settings.seconds)]);
      loads.push(['PATCH, one hot pet, before', () => measured(before, HOT_PET, settings.seconds)]);
      loads.push([RESERVE_COMMIT_BEFORE, () => measured(before, runReservationLoad, settings.seconds)]);
      loads.push(['GET /v1/inventory, before', () => measured(before, LIST_REQUESTS, settings.seconds)]);
    }
    for (const server of [now, ...(before === undefined ? [] : [before])]) {
      const headers = headersOf(server);
      await runLoad(server, patches, headers, settings.warmupSeconds);
      await runLoad(server, HOT_PET, headers, settings.warmupSeconds);
      await runReservationLoad(server, headers, settings.warmupSeconds);
      await runLoad(server, LIST_REQUESTS, headers, settings.warmupSeconds);
    }
    await runLoad(viaNginx, patches, headersOf(viaNginx), settings.warmupSeconds);
    await runLoad(twoLanes, patches, headersOf(twoLanes), settings.warmupSeconds);
    await runLoad(overSqlite, patches, headersOf(overSqlite), settings.warmupSeconds);
    const runs: Record<string, WriteRun[]> = {};
    for (let round = 1; round <= settings.rounds; round += 1) {
      for (const [name, measure] of loads) {
        const run = await measure();
        // Each run starts with no dirty pages left by the one before (pgbench's above all): the
        // checkpoint is taken between runs, outside every measurement.
        await probe.client.query('CHECKPOINT');
        runs[name] = [...(runs[name] ?? []), run];
        progress(
          `  round ${round}: ${name}: ${count(run.rps)} a second, PostgreSQL ${run.postgresUs.toFixed(0)} µs, ` +
            `service ${run.serviceUs?.toFixed(0) ?? '-'} µs a write, ${run.groupWrites?.toFixed(1) ?? '-'} writes a group`,
        );
      }
    }
    return { earlier, runs };
  } finally {
    for (const nginx of nginxes) await nginx.stop();
    await stopAll(servers);
    await probe.client.end();
  }
}

/** The mean group size of each round, or '-' where no group was measured (the floor, an earlier build, a GET). */
function groupsOf(runs: readonly WriteRun[]): string {
  const sizes = runs.map((run) => run.groupWrites);
  return sizes.every((size) => size === undefined) ? '-' : sizes.map((size) => size?.toFixed(1) ?? '-').join(', ');
}

const medianOf = (runs: readonly WriteRun[] | undefined, pick: (run: WriteRun) => number | undefined): number =>
  median((runs ?? []).map(pick).filter((n): n is number => n !== undefined));

/**
 * The loads' table: each rate with its ratio to the floor's and to the PATCH over SQLite's in the same
 * round (medians of the rounds), and PostgreSQL's and the service's CPU a write.
 */
export function groupCommitTable(result: GroupCommitResult): string {
  const floor = result.runs[FLOOR] ?? [];
  const sqlite = result.runs[SQLITE_PATCH] ?? [];
  const toSqlite = (runs: readonly WriteRun[]): number =>
    median(runs.map((run, i) => run.rps / (sqlite[i]?.rps ?? Number.NaN)));
  const rows = Object.entries(result.runs).map(([name, runs]) => {
    const toFloor = runs.map((run, i) => run.rps / (floor[i]?.rps ?? Number.NaN));
    // A GET is set beside its other build, not beside writes.
    const write = !name.startsWith('GET');
    return [
      name,
      count(medianOf(runs, (r) => r.rps)),
      name === FLOOR ? '1' : write ? `**${ratio(median(toFloor))}**` : '-',
      write ? toFloor.map(ratio).join(', ') : '-',
      write ? ratio(toSqlite(runs)) : '-',
      medianOf(runs, (r) => r.postgresUs).toFixed(0),
      name === FLOOR ? '-' : medianOf(runs, (r) => r.serviceUs).toFixed(0),
      groupsOf(runs),
    ];
  });
  return table(
    [
      'load',
      'requests a second',
      'ratio to the floor',
      'in each round',
      'ratio to SQLite PATCH',
      'PostgreSQL CPU µs a request',
      'service CPU µs a request',
      'writes a group commit, each round',
    ],
    rows,
  );
}
