import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { monotonicUs, type ProfileSummary, summariseProfile } from './cpu-profile.js';
import { fetchList, LIST_PETS, LIST_REQUESTS, patchRequests } from './http.js';
import { type LatencyRun, latencyTable, probeOnce } from './latency.js';
import { type LoadRequest, runLoad } from './load.js';
import { preparePetstore, startBaseline, startService } from './petstore.js';
import type { ServerProcess } from './server-process.js';
import { count, ms, table } from './stats.js';

export type ProfileTarget = 'baseline' | 'in-process' | 'Redis';

/** One server profiled under one load. */
export interface ProfileRun {
  readonly request: 'GET' | 'PATCH';
  /** The baseline, or the service with this limiter. */
  readonly target: ProfileTarget;
  readonly requests: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly cpuUsPerRequest: number | undefined;
  readonly summary: ProfileSummary;
  /** The same server and load in a run of its own, watched by the event-loop probe instead of the profiler. */
  readonly latency: LatencyRun;
}

export interface ProfileSettings {
  readonly seconds: number;
  readonly targets: readonly ProfileTarget[];
}

const WARMUP_SECONDS = 1;

/** Runs `load` on a server started under --cpu-prof, stops it, and sums the samples taken during the load. */
async function profileOnce(
  start: (profileDir: string) => Promise<ServerProcess>,
  profileDir: string,
  load: (server: ServerProcess, seconds: number) => ReturnType<typeof runLoad>,
  seconds: number,
): Promise<Omit<ProfileRun, 'request' | 'target' | 'latency'>> {
  const server = await start(profileDir);
  let window = { fromUs: 0, toUs: 0 };
  let run: Awaited<ReturnType<typeof runLoad>>;
  try {
    await load(server, WARMUP_SECONDS);
    const fromUs = monotonicUs();
    run = await load(server, seconds);
    window = { fromUs, toUs: monotonicUs() };
  } finally {
    await server.stop();
  }
  const [file] = (await readdir(profileDir)).filter((f) => f.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`${server.name} wrote no .cpuprofile in ${profileDir}`);
  const summary = await summariseProfile(join(profileDir, file), window);
  const { requests, rps, p50Ms, p99Ms, cpuUsPerRequest } = run;
  return { requests, rps, p50Ms, p99Ms, cpuUsPerRequest, summary };
}

/**
 * Profiles the hot path with `node --cpu-prof`: the service (and the bare Koa baseline, for reference)
 * under the GET and the PATCH loads of the HTTP suite, one process per profile, and sums where the CPU
 * time of the load went. Before each profile, the same server runs the same load watched by the
 * event-loop probe alone, which tells where a slow request waited (a blocked loop, the collector).
 */
export async function runProfileSuite(
  dir: string,
  redisUrl: string,
  settings: ProfileSettings,
  progress: (line: string) => void,
): Promise<ProfileRun[]> {
  const db = join(dir, 'profile.db');
  const key = await preparePetstore(db, LIST_PETS);
  const headers = { authorization: `Bearer ${key}` };
  const bodyFile = join(dir, 'profile-inventory.json');
  const listed = await startService('service (list for the baseline)', { db }, join(dir, 'profile-list.log'));
  try {
    await writeFile(bodyFile, await fetchList(listed, key));
  } finally {
    await listed.stop();
  }

  const loads: Record<ProfileRun['request'], readonly LoadRequest[]> = {
    GET: LIST_REQUESTS,
    PATCH: patchRequests(LIST_PETS, LIST_PETS),
  };
  const runs: ProfileRun[] = [];
  let n = 0;
  for (const request of ['GET', 'PATCH'] as const) {
    for (const target of settings.targets) {
      n += 1;
      const name = `${request} ${target}`;
      const log = join(dir, `profile-${n}.log`);
      const start = (watch: { profileDir?: string; probeFile?: string }): Promise<ServerProcess> =>
        target === 'baseline'
          ? startBaseline(`baseline (${name})`, bodyFile, log, watch)
          : startService(`service (${name})`, { db, ...watch, ...(target === 'Redis' ? { redisUrl } : {}) }, log);
      const load = (server: ServerProcess, seconds: number) => runLoad(server, loads[request], headers, seconds);
      const probeFile = join(dir, `probe-${n}.json`);
      const latency = await probeOnce(
        (file) => start({ probeFile: file }),
        probeFile,
        load,
        WARMUP_SECONDS,
        settings.seconds,
      );
      const profileDir = join(dir, `profile-${n}`);
      const measured = await profileOnce((d) => start({ profileDir: d }), profileDir, load, settings.seconds);
      runs.push({ request, target, ...measured, latency });
      progress(
        `  ${name}: p50 / p99 ${latency.p50Ms} / ${latency.p99Ms} ms with the probe; ` +
          `${Math.round(measured.rps)} req/s under the profiler`,
      );
    }
  }
  return runs;
}

const label = (run: ProfileRun): string =>
  `${run.request} ${run.target === 'baseline' ? 'baseline' : `service, ${run.target} limiter`}`;

const percent = (share: number): string => `${(share * 100).toFixed(1)} %`;

const PLACES_SHOWN = 14;
const FUNCTIONS_SHOWN = 12;

/** Every place that is among the largest of some profile, largest first overall. */
function placesShown(profiles: readonly ProfileRun[]): string[] {
  const total = new Map<string, number>();
  for (const p of profiles) {
    for (const place of p.summary.byPlace) total.set(place.name, (total.get(place.name) ?? 0) + place.share);
  }
  return [...total]
    .sort((a, b) => b[1] - a[1])
    .map(([name]) => name)
    .slice(0, PLACES_SHOWN);
}

/** The functions (or places) with the most of a profile's busy samples, largest first. */
export function functionsTable(shares: ProfileSummary['topSelf'], heading = 'function'): string {
  return table(
    ['share of busy samples', heading],
    shares.slice(0, FUNCTIONS_SHOWN).map((f) => [percent(f.share), `\`${f.name}\``]),
  );
}

/** The profile section of bench/README.md: the share of each place, then the hottest functions of each profile. */
export function profileSection(profiles: readonly ProfileRun[], settings: ProfileSettings): string {
  const places = placesShown(profiles);
  const cell = (run: ProfileRun, place: string): string => {
    const found = run.summary.byPlace.find((p) => p.name === place);
    return found === undefined ? '-' : percent(found.share);
  };
  const byPlace = table(
    ['where (share of busy samples, self time)', ...profiles.map(label)],
    [
      [
        '**server CPU µs a request** (/proc, under the profiler)',
        ...profiles.map((p) => (p.cpuUsPerRequest === undefined ? 'n/a' : `**${p.cpuUsPerRequest.toFixed(0)}**`)),
      ],
      ['req/s under the profiler', ...profiles.map((p) => count(p.rps))],
      ['p50 / p99 ms under the profiler', ...profiles.map((p) => `${ms(p.p50Ms)} / ${ms(p.p99Ms)}`)],
      ...places.map((place) => [place, ...profiles.map((p) => cell(p, place))]),
    ],
  );
  const details = profiles
    .filter((p) => p.target !== 'baseline')
    .flatMap((p) => [
      `### ${label(p)}`,
      '',
      'Functions with the most self time:',
      '',
      functionsTable(p.summary.topSelf),
      '',
      "The service's own functions by inclusive time (their own time and what they call before their first",
      'await; time after an await is counted where the continuation runs):',
      '',
      functionsTable(p.summary.topOwnInclusive),
      '',
    ]);
  return [
    '## Profile: where the time goes',
    '',
    `Each server runs alone under \`node --cpu-prof\` with the load of the HTTP section for ${settings.seconds} s`,
    '(after a 1 s warm-up); only the samples taken during the load are summed (by the monotonic clock the',
    'profiler stamps them with), by the place of the function each sample was in (its self time), as shares',
    'of the busy samples (all but idle). The profiler samples by wall clock: while other work holds the CPUs,',
    'the time the server waits for one is counted where it was, mostly in system calls (`writev`). The',
    'profiler also slows every server, so its req/s are not those of the HTTP section. "native code called',
    'from JS" is C++ called from JavaScript: socket writes (`writev`, `writeString`), hashing, and SQLite',
    'where V8 does not give the time to the calling function.',
    ...(profiles.every((p) => p.summary.windowed)
      ? []
      : ['', 'On this platform the samples could not be cut to the load: the start-up is summed too.']),
    '',
    byPlace,
    '',
    '### Latency: where a slow request waits',
    '',
    'Each server also runs the same load for the same time without the profiler, with',
    '`bench/event-loop-probe.mjs` loaded (`node --import`), which watches its event loop and its garbage',
    'collector during the load alone. "Loop delay" is how much later than asked a 1 ms timer fired: a turn',
    'of the loop that long kept every other request waiting (a p99 of the delay near the p99 of the',
    'requests says the wait was a blocked loop, not the queue). "Event loop busy" is the share of the time',
    'it ran code rather than waiting for I/O: near 100 %, the server is saturated and a request waits in',
    'the queue of the 50 connections behind the others.',
    '',
    latencyTable(
      profiles.map(label),
      profiles.map((p) => p.latency),
    ),
    '',
    ...details,
  ].join('\n');
}
