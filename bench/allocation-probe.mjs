/**
 * Loaded into a server under test with `node --import bench/allocation-probe.mjs` (plain JavaScript, so
 * that the service runs from dist/ with nothing else loaded): it counts the bytes each V8 isolate of the
 * process allocates on its heap, and the HTTP requests the process received. The preload runs again in
 * every worker thread started from a file (a worker inherits the process's `--import`s; one started from
 * a string of code does not run them), so the SQLite writer thread counts its own heap. On each SIGUSR2
 * the main thread asks every worker that announced itself for its count, over a BroadcastChannel, and
 * writes what each isolate allocated since the signal before (or since start) to the file named by
 * BENCH_ALLOCATION_FILE, as JSON; every count starts afresh. The benchmark signals once before a load and
 * once after it, both while the server is idle.
 *
 * A heap only grows by what is allocated on it and only shrinks by what a collection frees, so what was
 * allocated between two readings is the growth of its used size plus what every collection in between
 * freed: the used size before each one less the size after it, which v8.GCProfiler records. These sizes
 * are the `total_size_before` and `total_size_after` that `node --trace-gc-nvp` prints (its `allocated`
 * is the one less the other's previous value), read at the window's edges as well as at each collection:
 * bytes allocated after a window's last collection count too, where a sum of `allocated` would leave them
 * to the next window. As `allocated`, this is the JavaScript heap: a Buffer's bytes outside it are not.
 */
import { subscribe } from 'node:diagnostics_channel';
import { renameSync, writeFileSync } from 'node:fs';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import { BroadcastChannel, isMainThread, threadId } from 'node:worker_threads';

const CHANNEL = 'bench-allocation-probe';
const ANSWERS_WITHIN_MS = 2_000;

/** This isolate's count: its collections since `open`, and its heap's used size then. */
let profiler;
let usedAtOpen = 0;
let requests = 0;

function open() {
  profiler = new GCProfiler();
  profiler.start();
  requests = 0;
  usedAtOpen = getHeapStatistics().used_heap_size;
}

/** What this isolate allocated since `open`, and how often it collected; read before anything else allocates. */
function close() {
  const usedNow = getHeapStatistics().used_heap_size;
  const started = requests;
  const { statistics } = profiler.stop();
  let freed = 0;
  let pauseMs = 0;
  for (const gc of statistics) {
    freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
    pauseMs += gc.cost / 1_000;
  }
  return { threadId, allocatedBytes: usedNow - usedAtOpen + freed, collections: statistics.length, pauseMs, started };
}

// Each request received on this thread (the event loop's HTTP server), counted by the server: those the
// load generator abandons at its end were received and are served all the same, their bytes counted.
subscribe('http.server.request.start', () => {
  requests += 1;
});

const channel = new BroadcastChannel(CHANNEL);

if (isMainThread) {
  const file = process.env.BENCH_ALLOCATION_FILE;
  if (file === undefined) throw new Error('allocation-probe: set BENCH_ALLOCATION_FILE');
  /** The workers that announced themselves, by thread id. */
  const workers = new Set();
  /** The answers to the current ask, and what to do once every worker answered. */
  let pending;
  channel.onmessage = ({ data }) => {
    if (data.kind === 'hello') workers.add(data.threadId);
    else if (data.kind === 'bye') workers.delete(data.threadId);
    else if (data.kind === 'count' && pending?.seq === data.seq) {
      pending.answers.push(data.count);
      if (pending.answers.length === workers.size) pending.done();
    }
  };
  let seq = 0;
  open();
  process.on('SIGUSR2', () => {
    const own = close();
    open();
    seq += 1;
    const asked = { seq, answers: [], done: () => {} };
    pending = asked;
    const write = () => {
      clearTimeout(timer);
      pending = undefined;
      const answered = new Set(asked.answers.map((a) => a.threadId));
      const silent = [...workers].filter((id) => !answered.has(id));
      const report = { seq: asked.seq, threads: [own, ...asked.answers], silent };
      writeFileSync(`${file}.part`, JSON.stringify(report));
      // Whole or not at all: the benchmark may read the file while it is written.
      renameSync(`${file}.part`, file);
    };
    const timer = setTimeout(write, ANSWERS_WITHIN_MS);
    asked.done = write;
    if (workers.size === 0) write();
    else channel.postMessage({ kind: 'ask', seq });
  });
} else {
  open();
  channel.onmessage = ({ data }) => {
    if (data.kind !== 'ask') return;
    const count = close();
    open();
    channel.postMessage({ kind: 'count', seq: data.seq, count });
  };
  channel.postMessage({ kind: 'hello', threadId });
  process.once('exit', () => channel.postMessage({ kind: 'bye', threadId }));
}
// The probe must not keep a thread alive: a writer thread ends when the store closes.
channel.unref();
