import { readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import type { LoadRun } from './load.js';
import type { ServerProcess } from './server-process.js';
import { ms, table } from './stats.js';

/** What bench/event-loop-probe.mjs saw in a server between two signals. */
export interface ProbeReport {
  readonly seq: number;
  readonly seconds: number;
  /** How much later than asked a 1 ms timer fired: how long a turn of the loop held everything else. */
  readonly delay: { readonly p50Ms: number; readonly p99Ms: number; readonly maxMs: number; readonly meanMs: number };
  /** The share of the time the event loop was busy. */
  readonly utilisation: number;
  /** The collector's pauses by kind (minor, major, incremental, weak callbacks). */
  readonly gc: Readonly<
    Record<string, { readonly count: number; readonly totalMs: number; readonly longestMs: number }>
  >;
}

/** One server under one load, watched by the probe (and by nothing else). */
export interface LatencyRun {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly probe: ProbeReport;
}

const PROBE_WITHIN_MS = 5_000;

/** Signals the probe in `server` and resolves to its report number `seq`. */
async function readProbe(server: ServerProcess, file: string, seq: number): Promise<ProbeReport> {
  process.kill(server.pid, 'SIGUSR2');
  const deadline = Date.now() + PROBE_WITHIN_MS;
  while (Date.now() < deadline) {
    const text = await readFile(file, 'utf8').catch(() => '');
    // A report being written may be read half way: only a whole one with the awaited number counts.
    const report = text.endsWith('}') ? (JSON.parse(text) as ProbeReport) : undefined;
    if (report?.seq === seq) return report;
    await delay(20);
  }
  throw new Error(`${server.name}: the event-loop probe wrote no report ${seq} to ${file}`);
}

/**
 * Starts a server with the event-loop probe, warms it up with `load`, then runs the load again for
 * `seconds` and returns what the load generator and the probe saw during that run alone.
 */
export async function probeOnce(
  start: (probeFile: string) => Promise<ServerProcess>,
  probeFile: string,
  load: (server: ServerProcess, seconds: number) => Promise<LoadRun>,
  warmupSeconds: number,
  seconds: number,
): Promise<LatencyRun> {
  const server = await start(probeFile);
  try {
    await load(server, warmupSeconds);
    await readProbe(server, probeFile, 1);
    const run = await load(server, seconds);
    const probe = await readProbe(server, probeFile, 2);
    return { rps: run.rps, p50Ms: run.p50Ms, p99Ms: run.p99Ms, probe };
  } finally {
    await server.stop();
  }
}

const percent = (share: number): string => `${(share * 100).toFixed(0)} %`;

/** `count × longest ms` of one kind of collector pause, or - when there was none. */
function pauses(run: LatencyRun, kind: string): string {
  const k = run.probe.gc[kind];
  return k === undefined ? '-' : `${k.count} × ≤ ${ms(k.longestMs)}`;
}

/** The table of probed runs, one column a server, under `labels`. */
export function latencyTable(labels: readonly string[], runs: readonly LatencyRun[]): string {
  const row = (name: string, cell: (run: LatencyRun) => string): string[] => [name, ...runs.map(cell)];
  const gcShare = (run: LatencyRun): number =>
    Object.values(run.probe.gc).reduce((sum, k) => sum + k.totalMs, 0) / (run.probe.seconds * 1_000);
  return table(
    ['under the load of the HTTP section', ...labels],
    [
      row('req/s', (r) => String(Math.round(r.rps))),
      row('**p50 / p99 ms** (autocannon)', (r) => `**${ms(r.p50Ms)} / ${ms(r.p99Ms)}**`),
      row('event loop busy', (r) => percent(r.probe.utilisation)),
      row(
        'loop delay ms, p50 / p99 / max',
        (r) => `${ms(r.probe.delay.p50Ms)} / ${ms(r.probe.delay.p99Ms)} / ${ms(r.probe.delay.maxMs)}`,
      ),
      row('time in GC pauses', (r) => percent(gcShare(r))),
      row('minor GC pauses (count × longest ms)', (r) => pauses(r, 'minor')),
      row('major GC pauses (count × longest ms)', (r) => pauses(r, 'major')),
    ],
  );
}
