/**
 * Where the CPU of a request over PostgreSQL goes: the service over its own PostgreSQL server, under
 * `node --cpu-prof`, with the GET and the PATCH loads of the HTTP suite, one process a load. Prints the
 * server CPU a request (/proc) and the profile's shares by place and by function; writes nothing.
 * Usage: node --import tsx bench/postgres-profile.ts [seconds]   (default 10; builds the service first)
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgresServer } from '../tests/support/postgres-server.js';
import { monotonicUs, type Share, summariseProfile } from './cpu-profile.js';
import { LIST_PETS, LIST_REQUESTS, patchRequests } from './http.js';
import { type LoadRequest, runLoad } from './load.js';
import { buildService, preparePetstore, startService } from './petstore.js';
import { preparePostgres } from './postgres.js';

const seconds = Number(process.argv[2] ?? '10');
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
      { db: join(dir, 'unused.db'), databaseUrl: url, profileDir },
      join(dir, 'log'),
    );
    let window = { fromUs: 0, toUs: 0 };
    let run: Awaited<ReturnType<typeof runLoad>>;
    try {
      await runLoad(service, requests, headers, 1);
      const fromUs = monotonicUs();
      run = await runLoad(service, requests, headers, seconds);
      window = { fromUs, toUs: monotonicUs() };
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
