import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { monotonicUs, summariseProfile } from './cpu-profile.js';
import { assertNoWarnings, fetchList, LIST_PETS, LIST_REQUESTS, type LoadSettings } from './http.js';
import { type LoadRun, runLoad } from './load.js';
import { preparePetstore, startService } from './petstore.js';
import { type ServerProcess, stopAll } from './server-process.js';
import { count, median, ratio, runs, table } from './stats.js';
import { runTracingComparison, type TracingResult, tracingSection } from './tracing.js';

const percent = (n: number): string => `${(n * 100).toFixed(1)} %`;

/** The most GET throughput the metrics may cost: 5 %. */
export const METRICS_COST_TARGET = 0.05;

/** One round: the service with metrics off and on, under the same GET load, run back to back. */
export interface MetricsRound {
  readonly off: LoadRun;
  readonly on: LoadRun;
}

/** Where the CPU of the service with metrics on went, from one profiled run. */
export interface MetricsProfile {
  readonly busyMs: number;
  /** Self time of the metrics code: src/adapters/prometheus, request-metrics.ts and prom-client. */
  readonly metricsMs: number;
  /** Its functions with the most self time. */
  readonly top: readonly { readonly name: string; readonly ms: number }[];
}

export interface MetricsResult {
  readonly rounds: readonly MetricsRound[];
  readonly profile: MetricsProfile;
  /** The service with tracing on against it with metrics on; absent from the records of runs before tracing. */
  readonly tracing?: TracingResult;
}

const METRICS_CODE = /dist\/adapters\/prometheus\/|dist\/adapters\/http\/request-metrics\.js|^prom-client\//;

const rateRatio = (r: MetricsRound): number => r.on.rps / r.off.rps;

const cpuRatio = (r: MetricsRound): number | undefined =>
  r.on.cpuUsPerRequest === undefined || r.off.cpuUsPerRequest === undefined
    ? undefined
    : r.off.cpuUsPerRequest / r.on.cpuUsPerRequest;

/** What the metrics cost GET throughput: 1 less the median of the rounds' on/off rate ratios. */
export const metricsCost = (rounds: readonly MetricsRound[]): number => 1 - median(rounds.map(rateRatio));

/** Runs the GET load on the service with metrics on under `node --cpu-prof`, and sums the metrics code's share. */
async function profileMetrics(
  dir: string,
  db: string,
  key: string,
  seconds: number,
  progress: (line: string) => void,
): Promise<MetricsProfile> {
  const profileDir = join(dir, 'metrics-profile');
  await mkdir(profileDir, { recursive: true });
  const server = await startService(
    'service (metrics on, profiled)',
    { db, profileDir },
    join(dir, 'metrics-profile.log'),
  );
  let window = { fromUs: 0, toUs: 0 };
  try {
    const headers = { authorization: `Bearer ${key}` };
    await runLoad(server, LIST_REQUESTS, headers, 1);
    const fromUs = monotonicUs();
    await runLoad(server, LIST_REQUESTS, headers, seconds);
    window = { fromUs, toUs: monotonicUs() };
  } finally {
    await server.stop();
  }
  const [file] = (await readdir(profileDir)).filter((f) => f.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`${server.name} wrote no .cpuprofile in ${profileDir}`);
  const summary = await summariseProfile(join(profileDir, file), window, Number.POSITIVE_INFINITY);
  const own = summary.topSelf.filter((s) => METRICS_CODE.test(s.name.split(' ').at(-1) ?? ''));
  const metricsMs = own.reduce((sum, s) => sum + s.ms, 0);
  progress(`  profile: metrics code ${percent(metricsMs / summary.busyMs)} of the busy CPU time`);
  return { busyMs: summary.busyMs, metricsMs, top: own.slice(0, 6).map(({ name, ms }) => ({ name, ms })) };
}

/**
 * GET /v1/inventory (100 pets, in-process limiter) of two copies of the service, one with metrics on
 * (the default) and one with PETSTORE_METRICS=off, under autocannon. Each round runs both back to back,
 * the order swapped every round so that neither side always runs second, and takes the ratio within it.
 */
export async function runMetricsSuite(
  dir: string,
  settings: LoadSettings,
  progress: (line: string) => void,
): Promise<MetricsResult> {
  const logs = { on: join(dir, 'metrics-on.log'), off: join(dir, 'metrics-off.log') };
  const servers: ServerProcess[] = [];
  try {
    const key = await preparePetstore(join(dir, 'metrics-on.db'), LIST_PETS);
    await copyFile(join(dir, 'metrics-on.db'), join(dir, 'metrics-off.db'));
    const on = await startService('service (metrics on)', { db: join(dir, 'metrics-on.db') }, logs.on);
    servers.push(on);
    const off = await startService(
      'service (metrics off)',
      { db: join(dir, 'metrics-off.db'), metrics: false },
      logs.off,
    );
    servers.push(off);
    if ((await fetchList(on, key)) !== (await fetchList(off, key)))
      throw new Error('the two services listed different bytes');
    if ((await fetch(`${off.origin}/metrics`)).status !== 404)
      throw new Error('the service without metrics serves /metrics');

    const headers = { authorization: `Bearer ${key}` };
    const load = (server: ServerProcess, seconds: number) => runLoad(server, LIST_REQUESTS, headers, seconds);
    await load(off, settings.warmupSeconds);
    await load(on, settings.warmupSeconds);
    const rounds: MetricsRound[] = [];
    for (let round = 1; round <= settings.rounds; round += 1) {
      let measured: MetricsRound;
      if (round % 2 === 1) {
        const offRun = await load(off, settings.seconds);
        measured = { off: offRun, on: await load(on, settings.seconds) };
      } else {
        const onRun = await load(on, settings.seconds);
        measured = { on: onRun, off: await load(off, settings.seconds) };
      }
      rounds.push(measured);
      progress(
        `  round ${round}: metrics on ${count(measured.on.rps)} req/s, off ${count(measured.off.rps)} req/s, ` +
          `ratio ${ratio(rateRatio(measured))}`,
      );
    }
    await assertNoWarnings(on, logs.on);
    await assertNoWarnings(off, logs.off);
    await stopAll([off]);
    const tracing = await runTracingComparison(dir, on, join(dir, 'metrics-on.db'), key, settings, progress);
    // Stopped before the profiled run, so that it has the CPUs to itself; stopping again is harmless.
    await stopAll(servers);
    const profile = await profileMetrics(dir, join(dir, 'metrics-on.db'), key, settings.seconds, progress);
    return { rounds, profile, tracing };
  } finally {
    await stopAll(servers);
  }
}

/** The metrics section of bench/README.md. */
export function metricsSection(result: MetricsResult, settings: LoadSettings): string {
  const { rounds, profile } = result;
  const cpu = rounds.map(cpuRatio).filter((r): r is number => r !== undefined);
  const cost = metricsCost(rounds);
  const side = (pick: (r: MetricsRound) => number): string => count(median(rounds.map(pick)));
  return [
    '## Metrics: what they cost GET throughput',
    '',
    `- GET /v1/inventory (${LIST_PETS} pets, in-process limiter) of the service with metrics on (the default) and with`,
    '  `PETSTORE_METRICS=off`, the same database copied, as in the HTTP section otherwise. With metrics on, every',
    '  request is observed in the duration histogram, every decision counted, every storage call timed, and',
    "  prom-client's default process metrics run. /metrics itself is not scraped during the load.",
    `- ${settings.rounds} round(s) of ${settings.seconds} s a side, after a ${settings.warmupSeconds} s warm-up of each;`,
    '  each round runs both back to back, the order swapped every round, and takes the ratio within it.',
    '- The rates of a machine shared with other work move by more than 5 % from one run to the next; so one',
    `  more run of ${settings.seconds} s profiles the service with metrics on (\`node --cpu-prof\`) and sums the self time`,
    '  of the metrics code (src/adapters/prometheus, request-metrics.ts, prom-client): a share that other work',
    '  does not move. It leaves out what that code calls in Node (`performance.now`, an event listener).',
    '',
    table(
      [
        'req/s on / off',
        'ratio on / off',
        'ratio in each round',
        'CPU ratio (off / on, µs a request)',
        'cost (1 - ratio)',
        'metrics code, share of CPU',
        'aim',
      ],
      [
        [
          `${side((r) => r.on.rps)} / ${side((r) => r.off.rps)}`,
          ratio(median(rounds.map(rateRatio))),
          runs(rounds.map(rateRatio), ratio),
          cpu.length === 0 ? 'n/a' : ratio(median(cpu)),
          `**${percent(cost)}**`,
          `**${percent(profile.metricsMs / profile.busyMs)}**`,
          `< ${percent(METRICS_COST_TARGET)}`,
        ],
      ],
    ),
    '',
    table(
      ['metrics function (profiled run)', 'self ms', 'of busy CPU'],
      profile.top.map((f) => [f.name, f.ms.toFixed(0), percent(f.ms / profile.busyMs)]),
    ),
    ...(result.tracing === undefined ? [] : ['', tracingSection(result.tracing, settings)]),
  ].join('\n');
}
