import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assertNoWarnings, fetchList, LIST_PETS, LIST_REQUESTS, type LoadSettings } from './http.js';
import { type LoadRun, runLoad } from './load.js';
import { preparePetstore, startService } from './petstore.js';
import { type ServerProcess, stopAll } from './server-process.js';
import { count, median, ratio, runs, table } from './stats.js';

/** The most GET throughput the metrics may cost: 5 %. */
export const METRICS_COST_TARGET = 0.05;

/** One round: the service with metrics off and on, under the same GET load, run back to back. */
export interface MetricsRound {
  readonly off: LoadRun;
  readonly on: LoadRun;
}

export type MetricsResult = readonly MetricsRound[];

const rateRatio = (r: MetricsRound): number => r.on.rps / r.off.rps;

const cpuRatio = (r: MetricsRound): number | undefined =>
  r.on.cpuUsPerRequest === undefined || r.off.cpuUsPerRequest === undefined
    ? undefined
    : r.off.cpuUsPerRequest / r.on.cpuUsPerRequest;

/** What the metrics cost GET throughput: 1 less the median of the rounds' on/off rate ratios. */
export const metricsCost = (rounds: MetricsResult): number => 1 - median(rounds.map(rateRatio));

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
    return rounds;
  } finally {
    await stopAll(servers);
  }
}

const percent = (n: number): string => `${(n * 100).toFixed(1)} %`;

/** The metrics section of bench/README.md. */
export function metricsSection(rounds: MetricsResult, settings: LoadSettings): string {
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
    '',
    table(
      ['req/s on / off', 'ratio on / off', 'ratio in each round', 'CPU ratio (off / on, µs a request)', 'cost', 'aim'],
      [
        [
          `${side((r) => r.on.rps)} / ${side((r) => r.off.rps)}`,
          ratio(median(rounds.map(rateRatio))),
          runs(rounds.map(rateRatio), ratio),
          cpu.length === 0 ? 'n/a' : ratio(median(cpu)),
          `**${percent(cost)}**`,
          `< ${percent(METRICS_COST_TARGET)}`,
        ],
      ],
    ),
  ].join('\n');
}
