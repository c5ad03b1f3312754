/**
 * Instructions a request, counted by valgrind's callgrind: a figure that other work on the machine does
 * not move, where CPU time and rates do (on two shared CPUs, the same build measured 125 to 240 µs of
 * CPU a PATCH within minutes). It runs the built service (SQLite, in-process limiter, as the HTTP
 * section) under callgrind twice, answering `--from` and then `--to` PATCHes (10 connections), and
 * divides the difference of the two totals by the difference of the requests: start-up and the first
 * requests cancel out. Every thread counts (the writer thread, V8's compiler and collector threads).
 * What is left still holds compilation of code the later requests made hot, so the instructions are
 * also given without the compiler's and the collector's, the part a request's own code decides.
 *
 * A caution measured with it (2026-11-24): two runs of one build (60af2c0; the second loaded
 * dist/tracing.js first, which does nothing without OTEL_EXPORTER_OTLP_ENDPOINT) gave 1,567k and 1,808k
 * instructions a PATCH in all, 634k and 739k without compiling and collecting garbage. What V8 compiles,
 * and when, still depends on timing under valgrind; a difference under about 15 % between two single
 * runs is not a finding. Run each build several times and compare the spread.
 *
 * Usage: node --import tsx bench/instructions.ts [--dist=<folder of a build>] [--from=300] [--to=3000]
 *   [--get]; needs `valgrind` (Debian package valgrind). About 5 minutes a run on an idle CPU: the two
 *   runs go in parallel.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { LIST_PETS, LIST_REQUESTS, patchRequests } from './http.js';
import type { LoadRequest } from './load.js';
import { cleanEnv, preparePetstore } from './petstore.js';

const option = (name: string, fallback: string): string =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const dist = resolve(option('dist', join(import.meta.dirname, '..', 'dist')));
const from = Number(option('from', '300'));
const to = Number(option('to', '3000'));
const requests: readonly LoadRequest[] = process.argv.includes('--get') ? LIST_REQUESTS : patchRequests(LIST_PETS, 50);

/** Where an instruction was spent, by the symbol callgrind gives it (JIT code has none). */
function placeOf(symbol: string): string {
  if (/compiler::|Scanner|Parser|maglev|Compile/i.test(symbol)) return 'V8 compiling';
  if (/Scaveng|Marking|Sweep|heap::|Heap|Evacuat|GC/.test(symbol)) return 'V8 collecting garbage';
  if (symbol.startsWith('Builtins_')) return 'V8 builtins';
  if (symbol.startsWith('0x') || symbol.startsWith('???')) return 'JIT-compiled JavaScript';
  if (symbol.includes('sqlite3')) return 'SQLite';
  if (/malloc|free|mem(set|cpy|move)/.test(symbol)) return 'C library memory';
  return 'other native code (V8 runtime, Node, libuv)';
}

/** Instructions by place in one callgrind output file. */
function instructionsByPlace(file: string): Map<string, number> {
  const out = spawnSync('callgrind_annotate', ['--threshold=100', file], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const places = new Map<string, number>();
  for (const line of out.stdout.split('\n')) {
    const match = /^\s*([\d,]+)\s+\([\s\d.]+%\)\s+(?:[^:]*:)?(.*)$/.exec(line);
    if (match === null || line.includes('PROGRAM TOTALS')) continue;
    const place = placeOf(match[2] as string);
    places.set(place, (places.get(place) ?? 0) + Number((match[1] as string).replaceAll(',', '')));
  }
  return places;
}

/** Runs the service under callgrind for `amount` requests; resolves to its instructions by place. */
async function countedRun(amount: number): Promise<{ answered: number; places: Map<string, number> }> {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-instructions-'));
  const db = join(dir, 'bench.db');
  const key = await preparePetstore(db, LIST_PETS);
  const log = join(dir, 'service.log');
  const fd = openSync(log, 'w');
  const child = spawn(
    'valgrind',
    ['--tool=callgrind', `--callgrind-out-file=${dir}/callgrind.out`, process.execPath, join(dist, 'main.js'), 'serve'],
    {
      stdio: ['ignore', fd, fd],
      env: {
        ...cleanEnv(),
        HOST: '127.0.0.1',
        PORT: '0',
        PETSTORE_ENV: 'production',
        PETSTORE_DB: db,
        PETSTORE_SYNCHRONOUS: 'FULL',
        LOG_LEVEL: 'info',
      },
    },
  );
  closeSync(fd);
  try {
    let origin: string | undefined;
    // Start-up under valgrind takes a minute or more on a busy machine.
    for (let waited = 0; origin === undefined && waited < 600_000; waited += 500) {
      await new Promise((done) => setTimeout(done, 500));
      origin = /"url":"(http[^"]+)\/v1"/.exec(readFileSync(log, 'utf8'))?.[1];
    }
    if (origin === undefined)
      throw new Error(`the service did not start under valgrind:\n${readFileSync(log, 'utf8')}`);
    const result = await autocannon({
      url: origin,
      connections: 10,
      amount,
      timeout: 60,
      requests: requests.map((r) => ({
        method: r.method,
        path: r.path,
        headers: {
          authorization: `Bearer ${key}`,
          ...(r.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(r.body === undefined ? {} : { body: r.body }),
      })),
    });
    if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
      throw new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`);
    }
    child.kill('SIGTERM');
    await new Promise((done) => child.once('exit', done));
    const [file] = readdirSync(dir).filter((name) => name.startsWith('callgrind.out'));
    if (file === undefined) throw new Error(`callgrind wrote no output in ${dir}`);
    return { answered: result.requests.total, places: instructionsByPlace(join(dir, file)) };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

const [first, second] = await Promise.all([countedRun(from), countedRun(to)]);
const answered = second.answered - first.answered;
const perRequest = new Map(
  [...second.places].map(([place, count]) => [place, (count - (first.places.get(place) ?? 0)) / answered]),
);
const sum = (skip: readonly string[]): number =>
  [...perRequest].filter(([place]) => !skip.includes(place)).reduce((total, [, n]) => total + n, 0);
const thousands = (n: number): string => `${Math.round(n / 1000).toLocaleString('en')}k`;
console.log(
  `${dist}: ${requests[0]?.method} requests ${first.answered} and ${second.answered}, instructions a request:`,
);
console.log(`  all: ${thousands(sum([]))}`);
console.log(`  without compiling: ${thousands(sum(['V8 compiling']))}`);
console.log(`  without compiling and collecting garbage: ${thousands(sum(['V8 compiling', 'V8 collecting garbage']))}`);
for (const [place, n] of [...perRequest].sort((a, b) => b[1] - a[1])) console.log(`    ${place}: ${thousands(n)}`);
