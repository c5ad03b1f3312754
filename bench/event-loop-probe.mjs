/**
 * Loaded into a server under test with `node --import bench/event-loop-probe.mjs` (plain JavaScript, so
 * that the service runs from dist/ with nothing else loaded): it watches the event loop and the garbage
 * collector, to tell where a slow request waited. On each SIGUSR2 it writes what it saw since the one
 * before (or since start) to the file named by BENCH_PROBE_FILE, as JSON, and starts afresh; the
 * benchmark signals once before a load and once after it.
 * - delay: how late a 1 ms timer fired (monitorEventLoopDelay, less its 1 ms), in ms: how long a turn of
 *   the loop kept everything else waiting;
 * - utilisation: the share of the time the loop was busy rather than waiting for I/O;
 * - gc: the collector's pauses by kind, from PerformanceObserver.
 */
import { writeFileSync } from 'node:fs';
import { constants, monitorEventLoopDelay, PerformanceObserver, performance } from 'node:perf_hooks';

const file = process.env.BENCH_PROBE_FILE;
if (file === undefined) throw new Error('event-loop-probe: set BENCH_PROBE_FILE');

const KINDS = new Map([
  [constants.NODE_PERFORMANCE_GC_MINOR, 'minor'],
  [constants.NODE_PERFORMANCE_GC_MAJOR, 'major'],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, 'incremental'],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, 'weak callbacks'],
]);

const RESOLUTION_MS = 1;
const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
delay.enable();
let pauses = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) pauses.push([KINDS.get(entry.detail?.kind) ?? 'other', entry.duration]);
}).observe({ entryTypes: ['gc'] });
let since = performance.now();
let utilisation = performance.eventLoopUtilization();
let seq = 0;

/** The histogram holds the whole interval between two firings; what matters is how much longer it was. */
const late = (ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS);

process.on('SIGUSR2', () => {
  const gc = {};
  for (const [kind, duration] of pauses) {
    gc[kind] ??= { count: 0, totalMs: 0, longestMs: 0 };
    const k = gc[kind];
    k.count += 1;
    k.totalMs += duration;
    k.longestMs = Math.max(k.longestMs, duration);
  }
  seq += 1;
  const report = {
    seq,
    seconds: (performance.now() - since) / 1000,
    delay: {
      p50Ms: late(delay.percentile(50)),
      p99Ms: late(delay.percentile(99)),
      maxMs: late(delay.max),
      meanMs: late(delay.mean),
    },
    utilisation: performance.eventLoopUtilization(utilisation).utilization,
    gc,
  };
  writeFileSync(file, JSON.stringify(report));
  delay.reset();
  pauses = [];
  since = performance.now();
  utilisation = performance.eventLoopUtilization();
});
