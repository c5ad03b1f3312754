/**
 * The list's filters at scale (DESIGN 5.2): how long one page of 100 takes from a store of N pets, for
 * each filter, beside an unfiltered page of the same store measured in the same rounds (the baseline),
 * and beside what a filter would cost without its index (the same page by a walk in id order alone,
 * SQLite's NOT INDEXED). In process, through InventoryRepository.list, as the HTTP adapter calls it.
 *
 * The pets: ids 1..N, 20 to 99 on hand, every hundredth pending and every thousandth sold; every
 * 10,000th has 0 to 2 on hand (low stock is rare, as in a store that restocks), and in the first half
 * of the ids every tenth has 30 to 39 (a bound that matches many pets, all of them early).
 *
 * PostgreSQL's planner picks its plan by its statistics: the run analyzes the table after filling it, as
 * autovacuum does within a minute of a bulk load.
 *
 * Run alone with `npm run bench -- --only=filters` (or `-- --quick --only=filters` for 100,000 pets).
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createMemoryAdapters } from '../src/adapters/memory/memory-adapters.js';
import { openPostgresStorage } from '../src/adapters/postgres/postgres-storage.js';
import { openSqliteStorage } from '../src/adapters/sqlite/sqlite-storage.js';
import { systemClock } from '../src/adapters/system/system-clock.js';
import type { InventoryQuery, InventoryRepository } from '../src/application/ports/inventory-repository.js';
import type { NewPet, PetCatalog } from '../src/application/ports/pet-catalog.js';
import { petId } from '../src/domain/pet-id.js';
import { quantity } from '../src/domain/quantity.js';
import { startPostgresServer } from '../support/postgres-server.js';
import { count, median, ratio, table } from './stats.js';

export type FilterStore = 'SQLite' | 'PostgreSQL' | 'memory';

export interface FiltersSettings {
  readonly pets: number;
  readonly rounds: number;
  readonly stores: readonly FilterStore[];
}

/** One case's times (ms) over the rounds: the first page, and the page after the middle of the ids. */
interface CaseTimes {
  readonly label: string;
  readonly first: number[];
  readonly deep: number[];
  /** Entries on the page after the middle. */
  entries: number;
}

export interface StoreFilters {
  readonly store: FilterStore;
  readonly fillSeconds: number;
  readonly cases: CaseTimes[];
  /** SQLite only: maxAvailable=2 by a walk of the ids (NOT INDEXED), what the page would cost without its index. */
  readonly unindexed?: { readonly first: number[]; readonly deep: number[] };
}

export type FiltersResult = StoreFilters[];

const CHUNK = 50_000;
const PAGE = 100;

function filterPet(i: number, pets: number): NewPet {
  const id = i + 1;
  let stock = 20 + (i % 80);
  if (id % 10_000 === 0) stock = id % 3;
  else if (id <= pets / 2 && id % 10 === 0) stock = 30 + (id % 10);
  const status = id % 1_000 === 0 ? 'sold' : id % 100 === 0 ? 'pending' : 'available';
  return { id: petId(BigInt(id)), name: `pet ${id}`, quantity: quantity(stock), status };
}

/** Stores the pets in chunks; the seconds it took. */
async function fill(catalog: PetCatalog, pets: number): Promise<number> {
  const started = performance.now();
  for (let from = 0; from < pets; from += CHUNK) {
    const chunk = Array.from({ length: Math.min(CHUNK, pets - from) }, (_, i) => filterPet(from + i, pets));
    const added = await catalog.addAll(chunk);
    if (!added.ok) throw new Error(`adding pets failed: ${added.error.message}`);
  }
  return (performance.now() - started) / 1000;
}

/** The cases: a name and the query of one page. */
const CASES: ReadonlyArray<readonly [string, InventoryQuery]> = [
  ['no filter (baseline)', {}],
  ['status=pending (1 %)', { statuses: ['pending'] }],
  ['status=sold (0.1 %)', { statuses: ['sold'] }],
  ['status=pending,sold', { statuses: ['pending', 'sold'] }],
  ['maxAvailable=2 (0.01 %, spread)', { maxAvailable: 2 }],
  ['maxAvailable=39 (5 %, first half)', { maxAvailable: 39 }],
  ['maxAvailable=2147483647 (all)', { maxAvailable: 2_147_483_647 }],
  ['status=pending&maxAvailable=39', { statuses: ['pending'], maxAvailable: 39 }],
];

const elapsedMs = (started: bigint): number => Number(process.hrtime.bigint() - started) / 1e6;

/** Milliseconds of one page of `query` from the start, then after `middle`; and the deep page's entries. */
async function pageMs(inventory: InventoryRepository, query: InventoryQuery, middle: bigint) {
  let entries = 0;
  const times: number[] = [];
  for (const after of [undefined, petId(middle)]) {
    const started = process.hrtime.bigint();
    entries = 0;
    for await (const chunk of inventory.list({ ...query, limit: PAGE, ...(after === undefined ? {} : { after }) })) {
      entries += chunk.length;
    }
    times.push(elapsedMs(started));
  }
  return { first: times[0] as number, deep: times[1] as number, entries };
}

/** Each case over the rounds, the cases taking turns within a round (the machine is noisy). */
async function measure(
  store: FilterStore,
  fillSeconds: number,
  inventory: InventoryRepository,
  settings: FiltersSettings,
  walk?: (after: bigint) => number,
): Promise<StoreFilters> {
  const middle = BigInt(Math.floor(settings.pets / 2));
  const cases: CaseTimes[] = CASES.map(([label]) => ({ label, first: [], deep: [], entries: 0 }));
  const unindexed = { first: [] as number[], deep: [] as number[] };
  for (let round = 0; round < settings.rounds; round += 1) {
    for (const [i, [, query]] of CASES.entries()) {
      const { first, deep, entries } = await pageMs(inventory, query, middle);
      const times = cases[i] as CaseTimes;
      times.first.push(first);
      times.deep.push(deep);
      times.entries = entries;
    }
    if (walk !== undefined) {
      unindexed.first.push(walk(-1n));
      unindexed.deep.push(walk(middle));
    }
  }
  return { store, fillSeconds, cases, ...(walk === undefined ? {} : { unindexed }) };
}

async function sqlite(dir: string, settings: FiltersSettings): Promise<StoreFilters> {
  const path = join(dir, 'filters.db');
  const storage = openSqliteStorage({ path });
  const raw = new Database(path, { readonly: true });
  try {
    const fillSeconds = await fill(storage.pets, settings.pets);
    // The counterfactual: the same low-stock page by a walk of the rows in id order, no index to skip by.
    const walk = raw.prepare(
      'SELECT id FROM pets NOT INDEXED WHERE id > ? AND quantity - held <= 2 ORDER BY id LIMIT 101',
    );
    return await measure('SQLite', fillSeconds, storage.inventory, settings, (after) => {
      const started = process.hrtime.bigint();
      walk.all(after);
      return elapsedMs(started);
    });
  } finally {
    raw.close();
    await storage.close();
  }
}

async function postgres(settings: FiltersSettings): Promise<StoreFilters> {
  const server = await startPostgresServer();
  try {
    const url = await server.createDatabase();
    const storage = await openPostgresStorage({ url });
    try {
      const fillSeconds = await fill(storage.pets, settings.pets);
      // What autovacuum does within a minute of a bulk load: the planner's statistics, the expression
      // index's included, by which it tells a bound few pets are under from one most are.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query('ANALYZE pets');
      await client.end();
      return await measure('PostgreSQL', fillSeconds, storage.inventory, settings);
    } finally {
      await storage.close();
    }
  } finally {
    await server.stop();
  }
}

/** Memory filters by a walk of the ids (see MemoryInventoryRepository.list): no index to skip by. */
async function memory(settings: FiltersSettings): Promise<StoreFilters> {
  const store = createMemoryAdapters(systemClock);
  return measure('memory', await fill(store.pets, settings.pets), store.inventory, settings);
}

/** Every store of `settings`, one after the other, each filled afresh. */
export async function runFiltersSuite(
  dir: string,
  settings: FiltersSettings,
  progress: (line: string) => void,
): Promise<FiltersResult> {
  const result: FiltersResult = [];
  for (const store of settings.stores) {
    const measured =
      store === 'SQLite'
        ? await sqlite(dir, settings)
        : store === 'PostgreSQL'
          ? await postgres(settings)
          : await memory(settings);
    progress(`  ${store}: ${count(settings.pets)} pets stored in ${measured.fillSeconds.toFixed(1)} s, measured`);
    result.push(measured);
  }
  return result;
}

/** One store's table: each case's medians, and its ratio to the unfiltered page of the same rounds. */
function storeTable(measured: StoreFilters): string {
  const base = measured.cases[0] as CaseTimes;
  const [baseFirst, baseDeep] = [median(base.first), median(base.deep)];
  const row = (label: string, first: readonly number[], deep: readonly number[], entries: string) => [
    label,
    median(first).toFixed(2),
    ratio(median(first) / baseFirst),
    median(deep).toFixed(2),
    ratio(median(deep) / baseDeep),
    entries,
  ];
  const { unindexed } = measured;
  return table(
    ['filter', 'first page ms', 'ratio', 'page after the middle ms', 'ratio', 'entries (page after the middle)'],
    [
      ...measured.cases.map((c) => row(c.label, c.first, c.deep, count(c.entries))),
      ...(unindexed === undefined
        ? []
        : [row('maxAvailable=2 by a walk of the ids alone (`NOT INDEXED`)', unindexed.first, unindexed.deep, '')]),
    ],
  );
}

/** The list filters' section of bench/README.md. */
export function filtersSection(result: FiltersResult, settings: FiltersSettings): string {
  return [
    `## List filters at ${count(settings.pets)} pets`,
    '',
    '```sh',
    'npm run bench -- --only=filters            # this section alone, printed (1,000,000 pets, 10 rounds)',
    'npm run bench -- --quick --only=filters    # 100,000 pets, 3 rounds',
    '```',
    '',
    'In process, through `InventoryRepository.list` as the HTTP adapter calls it: one page of 100 from the',
    'first pet, and one after the middle of the ids, each filter beside an unfiltered page of the same store',
    `measured in the same rounds (the baseline, ratio 1.00); medians of ${settings.rounds} rounds, the cases taking`,
    'turns within a round. The pets: 20 to 99 on hand; every hundredth pending, every thousandth sold; every',
    "10,000th has 0 to 2 on hand; in the first half of the ids every tenth has 30 to 39. PostgreSQL's table is",
    'analyzed after the fill, as autovacuum does within a minute of a bulk load. The walk row is SQLite reading',
    'the low-stock page without its index.',
    '',
    ...result.flatMap((measured) => [
      `${measured.store} (${count(settings.pets)} pets stored in ${measured.fillSeconds.toFixed(1)} s):`,
      '',
      storeTable(measured),
      '',
    ]),
  ]
    .join('\n')
    .trimEnd();
}
