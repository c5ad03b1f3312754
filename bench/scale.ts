import { readdir, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { monotonicUs, type ProfileSummary, summariseProfile } from './cpu-profile.js';
import { fetchList, type LoadSettings, patchRequests, runPairs, type Scenario, scenarioTable } from './http.js';
import { type ListPieces, listPiecesTable, measureListPieces } from './list-pieces.js';
import { prepareEarlierPetstore, preparePetstore, startBaseline, startService } from './petstore.js';
import { functionsTable } from './profile.js';
import { cpuSeconds, procStatusBytes, type ServerProcess, stopAll } from './server-process.js';
import { count, median, mib, percentiles, ratio, runs, table } from './stats.js';

/** The list at one size: its time to last byte, against the baseline sending the same bytes, and memory. */
export interface ScaleRow {
  readonly pets: number;
  readonly bytes: number;
  /** Seconds to the last byte, one client, in the order measured. */
  readonly serviceSeconds: readonly number[];
  readonly baselineSeconds: readonly number[];
  /** The CPU seconds (/proc) each server spent on each of those lists. */
  readonly serviceCpuSeconds: readonly number[];
  readonly baselineCpuSeconds: readonly number[];
  /** The service's resident set once listening, before any request. */
  readonly rssAtStartBytes: number | undefined;
  /** The service's peak resident set (VmHWM) after every request, and the largest VmRSS sampled during them. */
  readonly peakRssBytes: number | undefined;
  readonly sampledRssBytes: number | undefined;
  /** With `--against`: the earlier build's service, listed beside this one in each repetition. */
  readonly earlier?: EarlierListing;
}

/** An earlier build's service listing the same pets from a database its own code prepared. */
export interface EarlierListing {
  readonly seconds: readonly number[];
  readonly cpuSeconds: readonly number[];
  readonly peakRssBytes: number | undefined;
}

export interface ScaleSettings {
  readonly sizes: readonly number[];
  readonly repetitions: number;
  /** PATCH throughput is measured with the largest size stored. */
  readonly patch: LoadSettings;
}

export interface ScaleResult {
  readonly rows: ScaleRow[];
  readonly patch: Scenario & { readonly pets: number };
  /** For the largest list: the CPU of each step of listing, and where the service spends its time. */
  readonly pieces: ListPieces;
  readonly profile: ProfileSummary;
}

const RSS_SAMPLE_MS = 10;

export interface Listed {
  /** Until the last byte. */
  readonly seconds: number;
  /** The CPU time the server used meanwhile. */
  readonly cpuSeconds: number;
}

/** GETs the list and reads it to the end, keeping nothing. */
export function timeToLastByte(server: ServerProcess, key: string): Promise<Listed> {
  const started = performance.now();
  const cpuBefore = cpuSeconds(server.pid) ?? Number.NaN;
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}/inventory`, { headers: { authorization: `Bearer ${key}` }, agent: false });
    req.on('response', (res) => {
      if (res.statusCode !== 200) reject(new Error(`${server.name} answered ${res.statusCode}`));
      res.on('data', () => {});
      res.on('end', () =>
        resolve({
          seconds: (performance.now() - started) / 1000,
          cpuSeconds: (cpuSeconds(server.pid) ?? Number.NaN) - cpuBefore,
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Times the list on the service while sampling its resident set; resolves to the times and the largest sample. */
async function sampledTimeToLastByte(server: ServerProcess, key: string): Promise<Listed & { rss: number }> {
  let rss = 0;
  const sample = (): void => {
    rss = Math.max(rss, procStatusBytes(server.pid, 'VmRSS') ?? 0);
  };
  const timer = setInterval(sample, RSS_SAMPLE_MS);
  try {
    const listed = await timeToLastByte(server, key);
    sample();
    return { ...listed, rss };
  } finally {
    clearInterval(timer);
  }
}

const PROFILED_LISTS = 2;

/** Lists `PROFILED_LISTS` times on a service under --cpu-prof (after one list to warm up) and sums where its time went. */
async function profileList(dir: string, db: string, key: string): Promise<ProfileSummary> {
  const profileDir = join(dir, 'scale-profile');
  const service = await startService('service (profiled list)', { db, profileDir }, join(dir, 'scale-profile.log'));
  let window = { fromUs: 0, toUs: 0 };
  try {
    await timeToLastByte(service, key);
    const fromUs = monotonicUs();
    for (let i = 0; i < PROFILED_LISTS; i += 1) await timeToLastByte(service, key);
    window = { fromUs, toUs: monotonicUs() };
  } finally {
    await service.stop();
  }
  const [file] = (await readdir(profileDir)).filter((f) => f.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`the profiled list wrote no .cpuprofile in ${profileDir}`);
  return summariseProfile(join(profileDir, file), window);
}

const PIECE_REPETITIONS = 3;

/** The earlier build of `--against` serving `pets` pets from a database its own code prepared. */
async function startEarlier(dir: string, dist: string, pets: number): Promise<{ server: ServerProcess; key: string }> {
  const db = join(dir, `scale-${pets}-earlier.db`);
  const key = prepareEarlierPetstore(dist, db, pets);
  const server = await startService(
    `service of ${dist} (${pets} pets)`,
    { db, dist },
    join(dir, `scale-${pets}-earlier.log`),
  );
  return { server, key };
}

async function measureSize(
  dir: string,
  pets: number,
  settings: ScaleSettings,
  patch: ScaleResult['patch'] | undefined,
  against: string | undefined,
  progress: (line: string) => void,
): Promise<{ row: ScaleRow; db: string; key: string }> {
  const db = join(dir, `scale-${pets}.db`);
  const key = await preparePetstore(db, pets);
  const servers: ServerProcess[] = [];
  try {
    const service = await startService(`service (${pets} pets)`, { db }, join(dir, `scale-${pets}.log`));
    servers.push(service);
    const earlier = against === undefined ? undefined : await startEarlier(dir, against, pets);
    if (earlier !== undefined) servers.push(earlier.server);
    const earlierSeconds: number[] = [];
    const earlierCpuSeconds: number[] = [];
    const rssAtStartBytes = procStatusBytes(service.pid, 'VmRSS');
    const body = await fetchList(service, key);
    const bodyFile = join(dir, `inventory-${pets}.json`);
    await writeFile(bodyFile, body);
    const baseline = await startBaseline(`baseline (${pets} pets)`, bodyFile, join(dir, `baseline-${pets}.log`));
    servers.push(baseline);
    const serviceSeconds: number[] = [];
    const baselineSeconds: number[] = [];
    const serviceCpuSeconds: number[] = [];
    const baselineCpuSeconds: number[] = [];
    let sampled = 0;
    const listEarlier = async (): Promise<void> => {
      if (earlier === undefined) return;
      // Sampled as this build's list is, so that both are read by a client doing the same work.
      const then = await sampledTimeToLastByte(earlier.server, earlier.key);
      earlierSeconds.push(then.seconds);
      earlierCpuSeconds.push(then.cpuSeconds);
    };
    for (let i = 0; i < settings.repetitions; i += 1) {
      const sent = await timeToLastByte(baseline, key);
      baselineSeconds.push(sent.seconds);
      baselineCpuSeconds.push(sent.cpuSeconds);
      // The earlier build goes first every other repetition, so that neither list always follows the baseline's.
      if (i % 2 === 1) await listEarlier();
      const listed = await sampledTimeToLastByte(service, key);
      serviceSeconds.push(listed.seconds);
      serviceCpuSeconds.push(listed.cpuSeconds);
      sampled = Math.max(sampled, listed.rss);
      if (i % 2 === 0) await listEarlier();
    }
    const row: ScaleRow = {
      pets,
      bytes: Buffer.byteLength(body),
      serviceSeconds,
      baselineSeconds,
      serviceCpuSeconds,
      baselineCpuSeconds,
      rssAtStartBytes,
      peakRssBytes: procStatusBytes(service.pid, 'VmHWM'),
      sampledRssBytes: sampled === 0 ? undefined : sampled,
      ...(earlier === undefined
        ? {}
        : {
            earlier: {
              seconds: earlierSeconds,
              cpuSeconds: earlierCpuSeconds,
              peakRssBytes: procStatusBytes(earlier.server.pid, 'VmHWM'),
            },
          }),
    };
    progress(`  ${pets} pets: ${serviceSeconds.map((s) => s.toFixed(3)).join(', ')} s to the last byte`);
    if (earlier !== undefined)
      progress(`  ${pets} pets, earlier build: ${earlierSeconds.map((s) => s.toFixed(3)).join(', ')} s`);
    if (patch !== undefined) {
      const requests = patchRequests(pets, 1_000);
      await runPairs([{ scenario: patch, service, requests }], baseline, key, settings.patch, progress);
    }
    return { row, db, key };
  } finally {
    await stopAll(servers);
  }
}

/**
 * GET /v1/inventory with each number of pets stored: time to last byte for one client, alternating with
 * the bare Koa baseline sending the same bytes from memory, and the service's resident set; then PATCH
 * throughput with the largest number stored, against the baseline's PATCH. For the largest list, also
 * the CPU of each step of listing (in this process) and a profile of the service listing it.
 */
export async function runScaleSuite(
  dir: string,
  settings: ScaleSettings,
  against: string | undefined,
  progress: (line: string) => void,
): Promise<ScaleResult> {
  const largest = Math.max(...settings.sizes);
  const patch: ScaleResult['patch'] = {
    request: 'PATCH /v1/inventory/{petId}',
    limiter: 'in-process',
    target: 0.5,
    rounds: [],
    pets: largest,
  };
  const rows: ScaleRow[] = [];
  let stored = { db: '', key: '' };
  for (const pets of settings.sizes) {
    const measured = await measureSize(dir, pets, settings, pets === largest ? patch : undefined, against, progress);
    rows.push(measured.row);
    if (pets === largest) stored = measured;
  }
  const pieces = await measureListPieces(stored.db, largest, PIECE_REPETITIONS);
  const profile = await profileList(dir, stored.db, stored.key);
  progress(`  the steps of listing ${largest} pets, and a profile of the service listing them`);
  return { rows, patch, pieces, profile };
}

/** The peak RSS the 1,000,000-pet list must stay under. */
export const PEAK_RSS_TARGET_BYTES = 200_000_000;

/** How many times the bare Koa baseline's time to last byte the 1,000,000-pet list may take at most. */
export const TTLB_TARGET = 3;

/** The median of each repetition's service time over the baseline's time beside it. */
export const ttlbRatio = (r: ScaleRow): number =>
  median(r.serviceSeconds.map((s, i) => s / (r.baselineSeconds[i] as number)));

/** p50 / p99 of some seconds, nearest rank (p99 of fewer than 100 runs is the slowest). */
const p50p99 = (seconds: readonly number[]): string =>
  percentiles(seconds, [50, 99])
    .map((s) => s.toFixed(3))
    .join(' / ');

const bytesOrNa = (bytes: number | undefined): string => (bytes === undefined ? 'n/a' : `${mib(bytes)} MiB`);

/** The scale section of bench/README.md. */
export function scaleSection(result: ScaleResult, settings: ScaleSettings): string {
  const rows = result.rows.map((r) => {
    const service = median(r.serviceSeconds);
    return [
      count(r.pets),
      `${(r.bytes / 2 ** 20).toFixed(1)} MiB`,
      p50p99(r.serviceSeconds),
      p50p99(r.baselineSeconds),
      ratio(ttlbRatio(r)),
      `${median(r.serviceCpuSeconds).toFixed(3)} / ${median(r.baselineCpuSeconds).toFixed(3)}`,
      count(r.pets / service),
      bytesOrNa(r.rssAtStartBytes),
      `**${bytesOrNa(r.peakRssBytes)}**`,
      bytesOrNa(r.sampledRssBytes),
      runs(r.serviceSeconds, (s) => s.toFixed(3)),
    ];
  });
  return [
    '## Scale: the whole list, and updates among many pets',
    '',
    `GET /v1/inventory with each number of pets stored, one client, ${settings.repetitions} repetitions`,
    "alternating with the bare Koa baseline sending the same bytes from memory (read from the service's own",
    'answer). Times to the last byte are p50 / p99 of the repetitions (nearest rank: with fewer than 100, p99',
    "is the slowest); the ratio is the median of each repetition's over the baseline's beside it, and pets/s",
    "follows the p50. Peak RSS is the service process's VmHWM from /proc after all of its requests (start-up",
    'included); the sampled figure is the largest VmRSS read every 10 ms while it was listing.',
    '',
    table(
      [
        'pets',
        'body',
        'service s to last byte, p50 / p99',
        'baseline s, p50 / p99',
        'service / baseline',
        'server CPU s a list, service / baseline',
        'pets/s',
        'RSS at start',
        'peak RSS (VmHWM)',
        'largest sampled RSS',
        'runs (s)',
      ],
      rows,
    ),
    ...againstLines(result.rows),
    '',
    `### Where the time of the ${count(result.pieces.pets)}-pet list goes`,
    '',
    'The server CPU a list (from /proc, above) is what the service and the baseline spend on one list. What',
    'each step of listing costs the CPU, measured in the benchmark process on the same database (no HTTP),',
    `median of ${PIECE_REPETITIONS} repetitions; each step includes those above it but the last, which stands alone:`,
    '',
    listPiecesTable(result.pieces),
    '',
    `The service under \`node --cpu-prof\`, listing them ${PROFILED_LISTS} times after one list to warm up:`,
    'self time by place and by function, as shares of the busy samples (see the profile section). The time',
    'better-sqlite3 spends in C++ reading a page (`Statement.all`) is counted in the function that called it.',
    '',
    functionsTable(result.profile.byPlace, 'place'),
    '',
    functionsTable(result.profile.topSelf),
    '',
    `PATCH /v1/inventory/{petId} with ${count(result.patch.pets)} pets stored (1,000 pets spread evenly over`,
    `the ids, two quantities each), autocannon as in the HTTP section, ${settings.patch.seconds} s a run,`,
    `${settings.patch.rounds} round(s), against the baseline's PATCH:`,
    '',
    scenarioTable([result.patch]),
  ].join('\n');
}

/**
 * With `--against`: each size's list on this build beside the earlier build's, listed after it and
 * before it in turn in each repetition (time to last byte and server CPU as medians, and the peak
 * resident set).
 */
function againstLines(rows: readonly ScaleRow[]): string[] {
  const compared = rows.flatMap((r) => (r.earlier === undefined ? [] : [{ row: r, earlier: r.earlier }]));
  if (compared.length === 0) return [];
  const cpuUsAPet = (seconds: readonly number[], pets: number): string => ((median(seconds) * 1e6) / pets).toFixed(2);
  return [
    '',
    'Against an earlier build (`--against`): its service on a database its own code prepared with the same',
    'pets, listed beside this one in each repetition (after it, then before it, in turn); medians of the repetitions.',
    '',
    table(
      [
        'pets',
        's to last byte, now / earlier',
        'now / earlier',
        'server CPU s a list, now / earlier',
        'CPU µs a pet, now / earlier',
        'peak RSS, now / earlier',
      ],
      compared.map(({ row, earlier }) => [
        count(row.pets),
        `${median(row.serviceSeconds).toFixed(3)} / ${median(earlier.seconds).toFixed(3)}`,
        ratio(median(row.serviceSeconds) / median(earlier.seconds)),
        `${median(row.serviceCpuSeconds).toFixed(3)} / ${median(earlier.cpuSeconds).toFixed(3)}`,
        `${cpuUsAPet(row.serviceCpuSeconds, row.pets)} / ${cpuUsAPet(earlier.cpuSeconds, row.pets)}`,
        `${bytesOrNa(row.peakRssBytes)} / ${bytesOrNa(earlier.peakRssBytes)}`,
      ]),
    ),
  ];
}
