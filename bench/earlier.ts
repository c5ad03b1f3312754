import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpuRatios, medianRatio, type Scenario, sideMedian } from './http.js';
import { loadAverages } from './machine.js';
import { median, ms, ratio, table } from './stats.js';

/** The HTTP figures of an earlier release's benchmark run, kept to set this run's beside them. */
export interface EarlierRun {
  readonly date: string;
  readonly commit: string;
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
  readonly http: readonly Scenario[];
}

/** Version 1.0's run (commit 9ee6d83), as bench/results.json held it then. */
export const readEarlierRun = (): EarlierRun =>
  JSON.parse(readFileSync(join(import.meta.dirname, 'earlier-1.0.json'), 'utf8')) as EarlierRun;

const cpuRatio = (s: Scenario): string => {
  const ratios = cpuRatios(s);
  return ratios.length === 0 ? 'n/a' : ratio(median(ratios));
};

/**
 * GET and PATCH of this run beside version 1.0's: each side's ratio to its own run's bare Koa baseline,
 * the service's CPU a request, and its p50 / p99. The two runs had different loads on a shared machine,
 * so the ratios and the CPU ratio compare; the absolute rates and latencies say less.
 */
export function earlierSection(earlier: EarlierRun, now: readonly Scenario[]): string {
  const rows = now.flatMap((s) => {
    const before = earlier.http.find((e) => e.request === s.request && e.limiter === s.limiter);
    if (before === undefined) return [];
    const serviceCpu = (x: Scenario) =>
      sideMedian(
        x,
        'service',
        (r) => r.cpuUsPerRequest,
        (n) => n.toFixed(0),
      );
    const latency = (x: Scenario) =>
      `${sideMedian(x, 'service', (r) => r.p50Ms, ms)} / ${sideMedian(x, 'service', (r) => r.p99Ms, ms)}`;
    return [
      [
        s.request,
        s.limiter,
        `${ratio(medianRatio(before))} → **${ratio(medianRatio(s))}**`,
        `${cpuRatio(before)} → **${cpuRatio(s)}**`,
        `${serviceCpu(before)} → ${serviceCpu(s)}`,
        `${latency(before)} → ${latency(s)}`,
      ],
    ];
  });
  return [
    '## GET and PATCH: version 1.0 and now',
    '',
    `Version 1.0's figures are those of its benchmark run (commit ${earlier.commit}, ${earlier.date}, load average`,
    `${loadAverages(earlier.loadBefore)} before and ${loadAverages(earlier.loadAfter)} after), kept in`,
    "`bench/earlier-1.0.json`; the others are this run's HTTP section. Each ratio is to the bare Koa baseline",
    "of its own run. Since 1.0 a PATCH also checks If-Match and Idempotency-Key, moves the entry's version",
    'and stores its outcome, and GET answers an ETag; the server runs the SQLite writes in a worker thread,',
    'whose CPU the server CPU figures include.',
    '',
    table(
      [
        'request',
        'limiter',
        'ratio to bare Koa, 1.0 → now',
        'CPU ratio, 1.0 → now',
        'server CPU µs a request, 1.0 → now',
        'service p50 / p99 ms, 1.0 → now',
      ],
      rows,
    ),
  ].join('\n');
}
