/**
 * Where the CPU of a request over PostgreSQL goes: the service over its own PostgreSQL server, under
 * `node --cpu-prof`, with the GET and the PATCH loads of the HTTP suite, one process a load. Prints the
 * server CPU a request (/proc), split into the main thread's and the other threads' (V8's collector
 * helpers, libuv's pool), and the profile's shares by place and by function; writes nothing.
 * Usage: node --import tsx bench/postgres-profile.ts [seconds] [dist folder of another build]
 *   (default 10 s; builds this service first, and profiles the other build instead when named)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startPostgresServer } from '../support/postgres-server.js';
import { monotonicUs, type Share, summariseProfile } from './cpu-profile.js';
import { LIST_PETS, LIST_REQUESTS, patchRequests } from './http.js';
import { type LoadRequest, runLoad } from './load.js';
import { buildService, preparePetstore, startService } from './petstore.js';
import { preparePostgres } from './postgres.js';

const seconds = Number(process.argv[2] ?? '10');
const dist = process.argv[3] === undefined ? {} : { dist: resolve(process.argv[3]) };

/** CPU µs (user and system) of each thread of `pid`, by thread id, from /proc. */
function threadCpu(pid: number): Map<string, number> {
  const task = `/proc/${pid}/task`;
  return new Map(
    readdirSync(task).map((tid) => {
      const fields = (readFileSync(`${task}/${tid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
      return [tid, (Number(fields[11]) + Number(fields[12])) * 1e4];
    }),
  );
}
const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const shares = (title: string, list: readonly Share[]): void => {
  log(`  ${title}:`);
  for (const s of list) log(`    ${(s.share * 100).toFixed(1).padStart(5)} %  ${s.name}`);
};

buildService();
const dir = await mkdtemp(join(tmpdir(), 'petstore-pg-profile-'));
const postgres = await startPostgresServer();
try {
  const key = await preparePetstore(join(dir, 'unused.db'), 0);
  const url = await postgres.createDatabase();
  await preparePostgres(url, key, LIST_PETS);
  const headers = { authorization: `Bearer ${key}` };
  const loads: [string, readonly LoadRequest[]][] = [
    ['GET /v1/inventory', LIST_REQUESTS],
    ['PATCH /v1/inventory/{petId}', patchRequests(LIST_PETS, LIST_PETS)],
  ];
  for (const [name, requests] of loads) {
    const profileDir = join(dir, `profile-${name.slice(0, 3)}`);
    const service = await startService(
      name,
      { db: join(dir, 'unused.db'), databaseUrl: url, profileDir, ...dist },
      join(dir, 'log'),
    );
    let window = { fromUs: 0, toUs: 0 };
    let run: Awaited<ReturnType<typeof runLoad>>;
    try {
      await runLoad(service, requests, headers, 1);
      const fromUs = monotonicUs();
      const before = threadCpu(service.pid);
      run = await runLoad(service, requests, headers, seconds);
      const after = threadCpu(service.pid);
      window = { fromUs, toUs: monotonicUs() };
      const used = (tid: string): number => ((after.get(tid) ?? 0) - (before.get(tid) ?? 0)) / run.requests;
      const main = used(String(service.pid));
      const others = [...after.keys()].filter((tid) => tid !== String(service.pid)).reduce((n, t) => n + used(t), 0);
      log(`\n${name}: main thread ${main.toFixed(0)} µs a request, other threads ${others.toFixed(0)} µs`);
    } finally {
      await service.stop();
    }
    const [file] = (await readdir(profileDir)).filter((f) => f.endsWith('.cpuprofile'));
    if (file === undefined) throw new Error(`no .cpuprofile in ${profileDir}`);
    const summary = await summariseProfile(join(profileDir, file), window, 15);
    log(
      `\n${name}: ${Math.round(run.rps)} req/s under the profiler, server CPU ${run.cpuUsPerRequest?.toFixed(0)} µs a request`,
    );
    shares('by place (self time)', summary.byPlace);
    shares('functions by self time', summary.topSelf);
    shares("the service's own functions, inclusive", summary.topOwnInclusive);
  }
} finally {
  await postgres.stop();
  await rm(dir, { recursive: true, force: true });
}
