import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { openSqliteStorage } from '../src/adapters/sqlite/sqlite-storage.js';
import { petId } from '../src/domain/pet-id.js';
import { quantity } from '../src/domain/quantity.js';
import { benchPet } from './petstore.js';
import type { ImportRun } from './sqlite-import.js';
import { count, median, mib, ms, percentiles, ratio, runs, table } from './stats.js';

const IMPORT_CHILD = join(import.meta.dirname, 'sqlite-import.ts');
const IMPORT_MODES = ['raw', 'repository', 'cli'] as const;
type ImportMode = (typeof IMPORT_MODES)[number];

export interface SqliteSettings {
  readonly importPets: number;
  readonly importRounds: number;
  readonly updatePets: number;
  readonly updateSeconds: number;
  readonly updateRounds: number;
}

export interface UpdateRow {
  readonly synchronous: 'FULL' | 'NORMAL';
  readonly inFlight: number;
  /** Where the store runs its writes; absent in results from before the writer thread: inline. */
  readonly writer?: 'inline' | 'worker';
  readonly rates: number[];
  /** Each run's median and 99th percentile of one update, from the call to its settled promise. */
  readonly p50Ms: number[];
  readonly p99Ms: number[];
  /** CPU time of the whole process (every thread) an update, one figure a round. */
  readonly cpuUs?: number[];
}

export interface SqliteResult {
  readonly settings: SqliteSettings;
  readonly imports: Record<ImportMode, ImportRun[]>;
  readonly updates: UpdateRow[];
}

const IN_FLIGHT = 50;

/** The pets of the import as the JSON file `pets import` reads. */
async function writePetsFile(file: string, pets: number): Promise<void> {
  const out = createWriteStream(file);
  out.write('[\n');
  for (let i = 0; i < pets; i += 1) {
    const p = benchPet(i);
    const line = `{"id":${p.id},"name":"${p.name}","quantity":${p.quantity},"status":"${p.status}"}`;
    if (!out.write(i + 1 < pets ? `${line},\n` : `${line}\n]\n`)) {
      await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
  }
  await new Promise((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve(undefined))),
  );
}

function importInChild(mode: ImportMode, path: string, pets: number, file: string): ImportRun {
  const child = spawnSync(process.execPath, ['--import', 'tsx', IMPORT_CHILD, mode, path, String(pets), file], {
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`the ${mode} import failed: ${child.stderr}`);
  return JSON.parse(child.stdout) as ImportRun;
}

/**
 * Runs stock writes through InventoryRepository.write for `seconds`, with `inFlight` awaited at a time,
 * and adds the run's writes per second, latency percentiles and CPU time an update to `row`.
 */
async function measureUpdates(
  path: string,
  settings: SqliteSettings,
  row: UpdateRow & { cpuUs: number[] },
): Promise<void> {
  const storage = openSqliteStorage({ path, synchronous: row.synchronous, writer: row.writer ?? 'inline' });
  await storage.pets.addAll(Array.from({ length: settings.updatePets }, (_, i) => benchPet(i)));
  const write = (id: number, q: number) =>
    storage.inventory.write({
      orders: [{ kind: 'set', petId: petId(id), quantity: quantity(q) }],
      actor: 'bench',
      atMs: Date.now(),
    });
  // Untimed: a writer thread starts with the first write.
  await write(1, 1);
  const latencies: number[] = [];
  const deadline = performance.now() + settings.updateSeconds * 1000;
  const lane = async (): Promise<void> => {
    for (let began = performance.now(); began < deadline; began = performance.now()) {
      await write(1 + Math.floor(Math.random() * settings.updatePets), latencies.length % 1_000_000);
      latencies.push(performance.now() - began);
    }
  };
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: row.inFlight }, lane));
  const done = latencies.length;
  row.rates.push(done / ((performance.now() - started) / 1000));
  const used = process.cpuUsage(cpu);
  await storage.close();
  row.cpuUs.push((used.user + used.system) / done);
  const [p50, p99] = percentiles(latencies, [50, 99]) as [number, number];
  row.p50Ms.push(p50);
  row.p99Ms.push(p99);
}

/**
 * The SQLite storage on real files: imports of many pets (raw better-sqlite3 as the baseline,
 * PetCatalog.addAll, the CLI's `pets import`), each in a fresh process, and single-row stock updates
 * with synchronous FULL and NORMAL, one at a time and 50 in flight (the group commit's case), the latter
 * inline and in the writer thread. Rounds alternate the variants.
 */
export async function runSqliteSuite(
  dir: string,
  settings: SqliteSettings,
  progress: (line: string) => void,
): Promise<SqliteResult> {
  const petsFile = join(dir, 'pets.json');
  await writePetsFile(petsFile, settings.importPets);
  const imports: SqliteResult['imports'] = { raw: [], repository: [], cli: [] };
  let file = 0;
  for (let round = 1; round <= settings.importRounds; round += 1) {
    for (const mode of IMPORT_MODES) {
      file += 1;
      const run = importInChild(mode, join(dir, `import-${file}.db`), settings.importPets, petsFile);
      imports[mode].push(run);
      progress(`  round ${round}: ${mode} import of ${count(settings.importPets)} pets in ${run.seconds.toFixed(2)} s`);
    }
  }
  // The server's writer thread at 50 in flight beside the inline writer's rows.
  const updates: (UpdateRow & { cpuUs: number[] })[] = (['FULL', 'NORMAL'] as const).flatMap((synchronous) =>
    (
      [
        [1, 'inline'],
        [IN_FLIGHT, 'inline'],
        [IN_FLIGHT, 'worker'],
      ] as const
    ).map(([inFlight, writer]) => ({ synchronous, inFlight, writer, rates: [], p50Ms: [], p99Ms: [], cpuUs: [] })),
  );
  for (let round = 1; round <= settings.updateRounds; round += 1) {
    for (const row of updates) {
      file += 1;
      await measureUpdates(join(dir, `updates-${file}.db`), settings, row);
    }
    progress(`  round ${round}: updates/s ${updates.map((r) => count(r.rates[round - 1] as number)).join(', ')}`);
  }
  return { settings, imports, updates };
}

const IMPORT_LABELS: Record<ImportMode, string> = {
  raw: 'baseline: raw better-sqlite3 INSERT of id, name, status, quantity from plain arrays, one transaction',
  repository: '`PetCatalog.addAll` of the pets held in memory as domain values, one transaction',
  cli: '`pets import pets.json` (CLI: streamed lossless JSON parse, validation, `addStream`)',
};

/** The SQLite section of bench/README.md. */
export function sqliteSection(result: SqliteResult): string {
  const { settings, imports, updates } = result;
  const rawSeconds = median(imports.raw.map((r) => r.seconds));
  const importRows = IMPORT_MODES.map((mode) => {
    const all = imports[mode];
    const seconds = median(all.map((r) => r.seconds));
    return [
      IMPORT_LABELS[mode],
      seconds.toFixed(2),
      mode === 'raw' ? '1.00' : ratio(seconds / rawSeconds),
      runs(
        all.map((r) => r.seconds),
        (s) => s.toFixed(2),
      ),
      `${mib(median(all.map((r) => r.peakRssBytes)))} MiB`,
      `${mib(median(all.map((r) => r.rssBeforeBytes)))} MiB`,
    ];
  });
  const single = (synchronous: string): UpdateRow =>
    updates.find((u) => u.synchronous === synchronous && u.inFlight === 1) as UpdateRow;
  const updateRows = updates.map((u) => {
    const alone = single(u.synchronous);
    const gains = u.rates.map((rate, i) => rate / (alone.rates[i] as number));
    return [
      u.synchronous,
      String(u.inFlight),
      u.writer ?? 'inline',
      count(median(u.rates)),
      u.inFlight === 1 ? '1.00' : ratio(median(gains)),
      ms(median(u.p50Ms)),
      ms(median(u.p99Ms)),
      runs(u.rates),
      u.cpuUs === undefined ? 'n/a' : median(u.cpuUs).toFixed(0),
    ];
  });
  return [
    '## SQLite storage',
    '',
    `Import of ${count(settings.importPets)} pets, each run in a fresh process (peak RSS from`,
    `\`process.resourceUsage().maxRSS\`), the three paths alternating, ${settings.importRounds} round(s), median:`,
    '',
    table(['path', 'seconds', 'time / baseline', 'runs (s)', 'peak RSS', 'RSS before the import'], importRows),
    '',
    'Single-row stock updates through `InventoryRepository.write` (read, change, write, stock-change record)',
    `on ${count(settings.updatePets)} pets, a random pet each time, ${settings.updateSeconds} s a run, ` +
      `the ${updates.length} variants alternating, ${settings.updateRounds} round(s), median. The ratio is to one at a`,
    'time with the same `synchronous`, in the same round: what the group commit gains. p50 and p99 are of one',
    "update, from the call to its settled promise, each run's over all of its updates, median of the rounds.",
    '',
    table(
      [
        'synchronous',
        'updates in flight',
        'writer',
        'updates/s',
        'ratio to 1 in flight',
        'p50 ms',
        'p99 ms',
        'runs',
        'CPU µs an update',
      ],
      updateRows,
    ),
    '',
    'With 50 in flight the group commit runs the updates that arrive in one turn of the event loop in one',
    'transaction (a savepoint each) and pays one commit for all of them; every promise still settles only after',
    'that commit, so a resolved update is as durable as with a transaction of its own. FULL waits for the disk',
    'at every commit, so it gains the most. The `worker` writer (what the server runs) does the same on a',
    'connection of a worker thread, so the caller\'s event loop never waits for a commit; "CPU µs an update" is',
    "the whole process's CPU time (every thread) over the updates, which shows what the messages between the",
    'threads cost.',
  ].join('\n');
}
