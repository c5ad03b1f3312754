/**
 * The garbage a request makes (issue 42): the bytes each V8 isolate of a server allocates on its heap a
 * request, the event loop's and the other threads' (the SQLite writer thread, where there is one), under
 * the floors' PATCH load and under GET /v1/inventory of 100 items. The servers: bare Koa (the HTTP
 * section's baseline, answering the service's own list), bare Koa with the store's durable write
 * (bench/store-write-server.ts, on dist/'s storage so that its writer thread is counted), the service,
 * and with `--against=<dist folder>` the service of that earlier build.
 *
 * Each server runs with bench/allocation-probe.mjs, which counts, in every isolate, the used heap's
 * growth plus what each collection freed, and the requests the server received, between two SIGUSR2s.
 * The suite signals before a load and after it, both while the server is idle, so a window holds one
 * load whole and nothing else: no collection needs to fall on its edges, and what was allocated after
 * the last one is counted too. A CPU figure would not survive the probe (it reads the heap at every
 * collection); bytes are what the code allocates, and JIT tiers aside (hence the warm-up), the same in
 * every round, on a busy machine or a quiet one.
 * Run alone with `npm run bench -- --only=garbage` (or `-- --quick --only=garbage`, one short round).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { LoadSettings } from './http.js';
import { fetchList, LIST_PETS, LIST_REQUESTS, patchRequests } from './http.js';
import type { LoadRequest } from './load.js';
import { CONNECTIONS, runLoad } from './load.js';
import {
  cleanEnv,
  prepareEarlierPetstore,
  preparePetstore,
  probeEnv,
  startBaseline,
  startService,
  watching,
} from './petstore.js';
import { type ServerProcess, startServer, startTogether, stopAll } from './server-process.js';
import { count, median, runs, table } from './stats.js';

export type GarbageSettings = LoadSettings;

/** What the issue allows a PATCH to allocate, all threads together, in bytes (KB: 1,000 bytes). */
export const PATCH_ALLOCATION_TARGET_BYTES = 20_000;

/** One load on one server, between two readings of the probe. */
export interface GarbageWindow {
  /** Requests the server received in the window. */
  readonly requests: number;
  /** Bytes the event loop's isolate allocated in the window. */
  readonly loopBytes: number;
  /** Bytes the other isolates allocated, together: the SQLite writer thread, where there is one. */
  readonly otherBytes: number;
}

export interface GarbageSide {
  readonly name: string;
  readonly load: 'PATCH' | 'GET';
  readonly windows: GarbageWindow[];
}

/** The loads in the order measured in the first round, bare Koa's first. */
export type GarbageResult = GarbageSide[];

/** What bench/allocation-probe.mjs writes: each isolate's count since the signal before. */
interface ProbeReport {
  readonly seq: number;
  readonly threads: readonly {
    readonly threadId: number;
    readonly allocatedBytes: number;
    /** Requests that started on this isolate's HTTP server: the event loop's. */
    readonly started: number;
  }[];
  /** Workers that announced themselves and did not answer in time. */
  readonly silent: readonly number[];
}

/** A server with the probe, and the number of its next report. */
interface Probed {
  readonly server: ServerProcess;
  readonly file: string;
  readonly headers: Readonly<Record<string, string>>;
  seq: number;
}

const PROBE_WITHIN_MS = 5_000;
/**
 * How long a server is left after a load before the window closes: the requests the load generator
 * abandoned at its end are still served (their bytes had arrived), and their writes committed.
 */
const SETTLE_MS = 200;

/** Signals the probe of `target` and resolves to its next report. */
async function readProbe(target: Probed): Promise<ProbeReport> {
  target.seq += 1;
  process.kill(target.server.pid, 'SIGUSR2');
  const deadline = Date.now() + PROBE_WITHIN_MS;
  while (Date.now() < deadline) {
    // The probe renames a whole report into place: a file read is one report or the one before.
    const text = await readFile(target.file, 'utf8').catch(() => '');
    const report = text === '' ? undefined : (JSON.parse(text) as ProbeReport);
    if (report?.seq === target.seq) {
      if (report.silent.length > 0) throw new Error(`${target.server.name}: threads ${report.silent} did not answer`);
      return report;
    }
    await delay(20);
  }
  throw new Error(`${target.server.name}: the allocation probe wrote no report ${target.seq} to ${target.file}`);
}

const requestsOf = (load: GarbageSide['load']): LoadRequest[] =>
  load === 'GET' ? [...LIST_REQUESTS] : patchRequests(LIST_PETS, 50);

/** One window: the probe read, the load run, a pause, the probe read again. */
async function measure(target: Probed, load: GarbageSide['load'], seconds: number): Promise<GarbageWindow> {
  await readProbe(target);
  const run = await runLoad(target.server, requestsOf(load), target.headers, seconds);
  await delay(SETTLE_MS);
  const [loop, ...others] = (await readProbe(target)).threads;
  if (loop === undefined) throw new Error(`${target.server.name}: the allocation probe reported no thread`);
  // Every request answered was received; beyond those, at most one a connection was abandoned at the end.
  if (loop.started < run.requests || loop.started > run.requests + CONNECTIONS) {
    throw new Error(`${target.server.name}: received ${loop.started} requests, the load counted ${run.requests}`);
  }
  return {
    requests: loop.started,
    loopBytes: loop.allocatedBytes,
    otherBytes: others.reduce((sum, t) => sum + t.allocatedBytes, 0),
  };
}

/** A server of the suite and the loads it takes. */
interface Target extends Probed {
  readonly name: string;
  readonly loads: readonly GarbageSide['load'][];
}

async function startTargets(dir: string, against: string | undefined, servers: ServerProcess[]): Promise<Target[]> {
  const file = (name: string): string => join(dir, `garbage-${name}.json`);
  const target = (name: string, server: ServerProcess, loads: Target['loads'], key?: string): Target => ({
    name,
    server,
    file: file(server.name),
    headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
    loads,
    seq: 0,
  });
  const serviceDb = join(dir, 'garbage-service.db');
  const key = await preparePetstore(serviceDb, LIST_PETS);
  const earlierDb = join(dir, 'garbage-earlier.db');
  const earlierKey = against === undefined ? undefined : prepareEarlierPetstore(against, earlierDb, LIST_PETS);
  const [service, earlier] = await startTogether(
    servers,
    startService('service', { db: serviceDb, allocationFile: file('service') }, join(dir, 'garbage-service.log')),
    against === undefined
      ? undefined
      : startService(
          'earlier',
          { db: earlierDb, dist: against, allocationFile: file('earlier') },
          join(dir, 'garbage-earlier.log'),
        ),
  );
  // Bare Koa answers the service's own list, byte for byte, as in the HTTP section.
  const bodyFile = join(dir, 'garbage-inventory.json');
  await writeFile(bodyFile, await fetchList(service, key));
  const baseline = await startBaseline('baseline', bodyFile, join(dir, 'garbage-baseline.log'), {
    allocationFile: file('baseline'),
  });
  servers.push(baseline);
  const storeDb = join(dir, 'garbage-store-write.db');
  await preparePetstore(storeDb, LIST_PETS);
  const watch = { allocationFile: file('store-write') };
  const storeWrite = await startServer(
    'store-write',
    [
      ...watching(watch),
      '--import',
      'tsx',
      join(import.meta.dirname, 'store-write-server.ts'),
      storeDb,
      'FULL',
      'dist',
    ],
    { ...cleanEnv(), ...probeEnv(watch) },
    join(dir, 'garbage-store-write.log'),
  );
  servers.push(storeWrite);
  return [
    target('bare Koa', baseline, ['PATCH', 'GET']),
    target('bare Koa + the store write', storeWrite, ['PATCH']),
    target('service (in-process limiter)', service, ['PATCH', 'GET'], key),
    ...(earlier === undefined || earlierKey === undefined
      ? []
      : [target(`service of ${against}`, earlier, ['PATCH', 'GET'], earlierKey)]),
  ];
}

/** Every load warmed up, then measured in rounds, the order turning each round. */
export async function runGarbageSuite(
  dir: string,
  settings: GarbageSettings,
  against: string | undefined,
  progress: (line: string) => void,
): Promise<GarbageResult> {
  const servers: ServerProcess[] = [];
  try {
    const targets = await startTargets(dir, against, servers);
    const loads = targets.flatMap((target) => target.loads.map((load) => ({ target, load })));
    // Warm: the optimising compiler removes allocations that the first thousands of requests still make.
    for (const { target, load } of loads) {
      await runLoad(target.server, requestsOf(load), target.headers, settings.warmupSeconds);
    }
    const result: GarbageResult = loads.map(({ target, load }) => ({ name: target.name, load, windows: [] }));
    for (let round = 0; round < settings.rounds; round += 1) {
      for (let k = 0; k < loads.length; k += 1) {
        const i = (round + k) % loads.length;
        const { target, load } = loads[i] as (typeof loads)[number];
        result[i]?.windows.push(await measure(target, load, settings.seconds));
      }
      const each = result.map((side) => {
        const w = side.windows.at(-1);
        return w === undefined ? '-' : count((w.loopBytes + w.otherBytes) / w.requests);
      });
      progress(`  round ${round + 1}: ${each.join(' / ')} bytes a request`);
    }
    return result;
  } finally {
    await stopAll(servers);
  }
}

const perRequest = (bytes: (w: GarbageWindow) => number) => (w: GarbageWindow) => bytes(w) / w.requests;
const allBytes = perRequest((w) => w.loopBytes + w.otherBytes);

/** The median over the rounds of the bytes a PATCH to this build's service allocated, all threads. */
export function servicePatchBytes(result: GarbageResult): number | undefined {
  const side = result.find((s) => s.load === 'PATCH' && s.name.startsWith('service ('));
  return side === undefined || side.windows.length === 0 ? undefined : median(side.windows.map(allBytes));
}

/** KB (1,000 bytes) with one decimal. */
export const kb = (bytes: number): string => `${(bytes / 1_000).toFixed(1)} KB`;

/** The garbage section of bench/README.md. */
export function garbageSection(result: GarbageResult, settings: GarbageSettings): string {
  const rows = result.map((side) => {
    const of = (pick: (w: GarbageWindow) => number): string => count(median(side.windows.map(pick)));
    return [
      side.name,
      side.load,
      of(allBytes),
      of(perRequest((w) => w.loopBytes)),
      of(perRequest((w) => w.otherBytes)),
      runs(side.windows.map(allBytes)),
    ];
  });
  return [
    '## Garbage: what a request allocates, thread by thread',
    '',
    '```sh',
    'npm run bench -- --only=garbage                           # this section alone, printed',
    'npm run bench -- --only=garbage --against=<earlier dist>  # with the service of an earlier build',
    'npm run bench -- --quick --only=garbage                   # one short round',
    '```',
    '',
    `PATCH /v1/inventory/{petId} as in the floors, and GET /v1/inventory of ${LIST_PETS} items, ${settings.rounds} round(s) of`,
    `${settings.seconds} s on each server and load after ${settings.warmupSeconds} s of warm-up, the order turning each round; bytes`,
    "allocated on V8's heap a request received, medians (a Buffer's bytes outside the heap are not counted,",
    "as in `--trace-gc-nvp`'s `allocated`). The event loop is the main thread's isolate; the other threads",
    'are the SQLite writer thread, where there is one. Each server loads `bench/allocation-probe.mjs`, which',
    "reads every isolate's used heap size when signalled and at each collection (v8.GCProfiler): what an",
    'isolate allocated between two signals is the growth of that size plus what every collection freed. The',
    'suite signals before and after each load while the server is idle, so a window holds the load whole',
    "and nothing else, bytes allocated after its last collection included: a sum of `--trace-gc-nvp`'s",
    '`allocated` over the collections a load happened to trigger would leave those to the next window, and',
    "its lines give no time to tell which window a collection fell in. Bare Koa answers the service's own",
    'list; the store write runs on the storage of `dist/`, as the service does, so that its writer thread',
    'is counted. Requests: those the server received in the window, counted by the probe (the load',
    "generator's answered ones, and at most one a connection it abandoned at the end, which the server still",
    "serves); the probe's count adds one small object a request (Node's diagnostics message, about 56 bytes),",
    'to every server alike. The target: at most 20 KB (20,000 bytes) a PATCH to the service, all threads.',
    '',
    table(['server', 'request', 'all threads', 'event loop', 'other threads', 'each round, all threads'], rows),
  ].join('\n');
}
