/**
 * The benchmarks of the service, measured in one run (see bench/README.md, which a full run rewrites).
 * Usage: npm run bench [-- --quick] [-- --write]
 *   [-- --only=http,limiter,scale,profile,sqlite,metrics,cli,postgres,console,library,filters,floors,addresses,garbage [--merge]]
 *   [-- --against=<dist folder>] [-- --render]
 * - no option: every suite, full length, then bench/results.json and bench/README.md are rewritten;
 * - --quick: every suite with short rounds and small sizes (about a minute), printed only;
 * - --write: with --quick, rewrite both files all the same;
 * - --only: the suites named, printed only (the files are written whole or not at all);
 * - --merge: with --only, the suites' figures and settings replace theirs in bench/results.json, the rest
 *   are kept, and bench/README.md is written again (a section says when its figures were measured);
 * - --against: an earlier build (its dist/ folder, built, its node_modules beside it) joins the suites
 *   that compare builds (http: its in-process pairs; scale, postgres, library, floors, garbage), as their baseline;
 * - --render: measure nothing; write bench/README.md again from bench/results.json and bench/notes.md.
 */
import { rmSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startRedisServer } from '../support/redis-server.js';
import { addressMemorySection, runAddressMemorySuite } from './address-memory.js';
import { cliSection, runCliSuite } from './cli.js';
import { consoleSection, runConsoleSuite } from './console-load.js';
import { garbageSection, runGarbageSuite } from './garbage.js';
import { httpSection, runHttpSuite } from './http.js';
import { formatJson } from './json-file.js';
import { librarySection, runLibrarySuite } from './library.js';
import { limiterSection, runLimiterSuite } from './limiter.js';
import { filtersSection, runFiltersSuite } from './list-filters.js';
import { describeMachine, loadAverages, type Machine } from './machine.js';
import { metricsSection, runMetricsSuite } from './metrics.js';
import { floorsSection, runFloorsSuite } from './patch-floor.js';
import { buildService } from './petstore.js';
import { postgresSection, runPostgresSuite } from './postgres.js';
import { profileSection, runProfileSuite } from './profile.js';
import { type BenchRecord, type BenchResults, readme, targetsTable } from './report.js';
import { runScaleSuite, scaleSection } from './scale.js';
import { type BenchSettings, FULL, QUICK, SUITES, type Suite } from './settings.js';
import { runSqliteSuite, sqliteSection } from './sqlite.js';

const README = join(import.meta.dirname, 'README.md');
const NOTES = join(import.meta.dirname, 'notes.md');
const RESULTS = join(import.meta.dirname, 'results.json');
const USAGE = `usage: npm run bench [-- --quick] [-- --write] [-- --only=${SUITES.join(',')} [--merge]] [-- --against=<dist folder>] [-- --render]`;

interface Options {
  readonly render: boolean;
  readonly quick: boolean;
  readonly write: boolean;
  readonly merge: boolean;
  readonly suites: readonly Suite[];
  /** The dist/ folder of an earlier build, for the suites that compare builds. */
  readonly against: string | undefined;
}

const isSuite = (name: string): name is Suite => (SUITES as readonly string[]).includes(name);

function parseOptions(argv: readonly string[]): Options {
  let render = false;
  let quick = false;
  let write = false;
  let merge = false;
  let only: Suite[] | undefined;
  let against: string | undefined;
  for (const arg of argv) {
    if (arg === '--render') render = true;
    else if (arg === '--quick') quick = true;
    else if (arg === '--write') write = true;
    else if (arg === '--merge') merge = true;
    else if (arg.startsWith('--against=')) against = resolve(arg.slice('--against='.length));
    else if (arg.startsWith('--only=')) {
      const names = arg.slice('--only='.length).split(',');
      const unknown = names.filter((n) => !isSuite(n));
      if (unknown.length > 0) throw new Error(`unknown suite ${unknown.join(', ')}; ${USAGE}`);
      only = names.filter(isSuite);
    } else throw new Error(`unknown option ${arg}; ${USAGE}`);
  }
  const suites = only ?? [...SUITES];
  if (write && only !== undefined) throw new Error('--write needs every suite: the files are written whole');
  if (render && argv.length > 1) throw new Error(`--render takes no other option; ${USAGE}`);
  if (merge && (only === undefined || quick)) throw new Error('--merge needs --only, and full rounds');
  return { render, quick, write: only === undefined && (write || !quick), merge, suites, against };
}

const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

type Results = { -readonly [S in Suite]?: BenchResults[S] };

/** A suite's settings that older records may lack, which FULL and QUICK always hold. */
function entry<S extends Suite>(settings: BenchSettings, suite: S): NonNullable<BenchSettings[S]> {
  const value = settings[suite];
  if (value === undefined) throw new Error(`the settings have no ${suite} entry`);
  return value as NonNullable<BenchSettings[S]>;
}

/** Runs one suite into `results` and returns its section of the README. */
async function runSuite(
  suite: Suite,
  settings: BenchSettings,
  run: { readonly dir: string; readonly redisUrl: string; readonly machine: Machine; readonly against?: string },
  results: Results,
) {
  const { dir, redisUrl, machine, against } = run;
  switch (suite) {
    case 'http':
      results.http = await runHttpSuite(dir, redisUrl, settings.http, against, log);
      return httpSection(results.http, settings.http);
    case 'limiter':
      results.limiter = await runLimiterSuite(redisUrl, settings.limiter, log);
      return limiterSection(results.limiter, settings.limiter);
    case 'scale':
      results.scale = await runScaleSuite(dir, settings.scale, against, log);
      return scaleSection(results.scale, settings.scale);
    case 'profile':
      results.profile = await runProfileSuite(dir, redisUrl, settings.profile, log);
      return profileSection(results.profile, settings.profile);
    case 'sqlite':
      results.sqlite = await runSqliteSuite(dir, settings.sqlite, log);
      return sqliteSection(results.sqlite);
    case 'metrics':
      results.metrics = await runMetricsSuite(dir, settings.metrics, log);
      return metricsSection(results.metrics, settings.metrics);
    case 'cli':
      results.cli = await runCliSuite(dir, settings.cli, log);
      return cliSection(results.cli);
    case 'postgres': {
      const load = entry(settings, 'postgres');
      results.postgres = await runPostgresSuite(dir, machine.commit, load, against, log);
      return postgresSection(results.postgres, load);
    }
    case 'console': {
      const visits = entry(settings, 'console');
      results.console = await runConsoleSuite(dir, visits, log);
      return consoleSection(results.console, visits);
    }
    case 'library': {
      const library = entry(settings, 'library');
      results.library = runLibrarySuite(library, against, log);
      return librarySection(results.library, library);
    }
    case 'filters': {
      const filters = entry(settings, 'filters');
      results.filters = await runFiltersSuite(dir, filters, log);
      return filtersSection(results.filters, filters);
    }
    case 'floors': {
      const floors = entry(settings, 'floors');
      results.floors = await runFloorsSuite(dir, floors, against, log);
      return floorsSection(results.floors, floors);
    }
    case 'addresses': {
      results.addresses = runAddressMemorySuite(entry(settings, 'addresses'), log);
      return addressMemorySection(results.addresses);
    }
    case 'garbage': {
      const garbage = entry(settings, 'garbage');
      results.garbage = await runGarbageSuite(dir, garbage, against, log);
      return garbageSection(results.garbage, garbage);
    }
  }
}

async function runSuites(
  options: Options,
  settings: BenchSettings,
  dir: string,
  redisUrl: string,
  machine: Machine,
): Promise<Results> {
  const results: Results = {};
  for (const suite of options.suites) {
    const started = performance.now();
    log(`\n== ${suite} ==`);
    const run = { dir, redisUrl, machine, ...(options.against === undefined ? {} : { against: options.against }) };
    const markdown = await runSuite(suite, settings, run, results);
    log(`\n${markdown}\n\n(${suite}: ${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  return results;
}

const complete = (r: Results): r is BenchResults => SUITES.every((s) => r[s] !== undefined);

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options.render) return writeReadme(JSON.parse(await readFile(RESULTS, 'utf8')) as BenchRecord);
  const settings = options.quick ? QUICK : FULL;
  const machine = describeMachine();
  const started = performance.now();
  log(`${machine.cpus} CPUs, ${machine.cpuModel}; node ${machine.node}; ${machine.redis}`);
  log(`load average ${loadAverages(machine.loadBefore)}; commit ${machine.commit}`);
  log('building the service afresh (dist/ removed, then npm run --silent build)');
  buildService();

  const dir = await mkdtemp(join(tmpdir(), 'petstore-bench-'));
  // Ctrl-C: the servers die with this process (server-process.ts and redis-server.ts see to it); the files go here.
  process.once('SIGINT', () => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  });
  const redis = await startRedisServer();
  let results: Results;
  try {
    results = await runSuites(options, settings, dir, redis.url, machine);
  } finally {
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  }
  const minutes = (performance.now() - started) / 60_000;
  if (complete(results)) log(`\n## Targets\n\n${targetsTable(results)}\n`);
  log(`done in ${minutes.toFixed(1)} minutes`);
  if (options.merge) return mergeResults(results, settings, options.suites, { machine, minutes });
  if (!options.write || !complete(results)) return;
  const date = new Date().toISOString().slice(0, 10);
  const record: BenchRecord = { date, machine, loadAfter: loadavg(), quick: options.quick, minutes, settings, results };
  await writeFile(RESULTS, formatJson(record));
  await writeReadme(record);
}

/** Puts the figures and settings of `suites` into bench/results.json in place of theirs, and renders the README. */
async function mergeResults(
  results: Results,
  settings: BenchSettings,
  suites: readonly Suite[],
  run: { readonly machine: Machine; readonly minutes: number },
): Promise<void> {
  const record = JSON.parse(await readFile(RESULTS, 'utf8')) as BenchRecord;
  const picked = <T extends object>(all: T): Partial<T> =>
    Object.fromEntries(suites.map((s) => [s, all[s as keyof T]])) as Partial<T>;
  const date = new Date().toISOString().slice(0, 10);
  const { commit, cpuModel } = run.machine;
  const remeasure = { date, commit, cpuModel, minutes: run.minutes };
  const merged: BenchRecord = {
    ...record,
    settings: { ...record.settings, ...picked(settings) },
    results: { ...record.results, ...picked(results as BenchResults) },
    remeasured: { ...record.remeasured, ...Object.fromEntries(suites.map((s) => [s, remeasure])) },
  };
  await writeFile(RESULTS, formatJson(merged));
  await writeReadme(merged);
}

async function writeReadme(record: BenchRecord): Promise<void> {
  await writeFile(README, readme(record, await readFile(NOTES, 'utf8')));
  log(`wrote ${README}`);
}

await main();
