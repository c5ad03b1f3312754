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
 * Usage: node --import tsx bench/list-filters.ts [pets=1000000] [sqlite|postgres|both|memory=both] [rounds=15]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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

const [petsArg = '1000000', storesArg = 'both', roundsArg = '15'] = process.argv.slice(2);
const PETS = Number(petsArg);
const ROUNDS = Number(roundsArg);
const CHUNK = 50_000;
const PAGE = 100;

function filterPet(i: number): NewPet {
  const id = i + 1;
  let stock = 20 + (i % 80);
  if (id % 10_000 === 0) stock = id % 3;
  else if (id <= PETS / 2 && id % 10 === 0) stock = 30 + (id % 10);
  const status = id % 1_000 === 0 ? 'sold' : id % 100 === 0 ? 'pending' : 'available';
  return { id: petId(BigInt(id)), name: `pet ${id}`, quantity: quantity(stock), status };
}

async function fill(pets: PetCatalog): Promise<void> {
  for (let from = 0; from < PETS; from += CHUNK) {
    const chunk = Array.from({ length: Math.min(CHUNK, PETS - from) }, (_, i) => filterPet(from + i));
    const added = await pets.addAll(chunk);
    if (!added.ok) throw new Error(`adding pets failed: ${added.error.message}`);
  }
}

const middle = petId(BigInt(Math.floor(PETS / 2)));

/** The cases: a name, the query of one page, and how many entries the page holds here. */
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

/** Milliseconds of one page of `query`, first from the start, then from the middle of the ids. */
async function pageMs(inventory: InventoryRepository, query: InventoryQuery): Promise<[number, number, number]> {
  let count = 0;
  const times: number[] = [];
  for (const after of [undefined, middle]) {
    const started = process.hrtime.bigint();
    count = 0;
    for await (const chunk of inventory.list({ ...query, limit: PAGE, ...(after === undefined ? {} : { after }) })) {
      count += chunk.length;
    }
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return [times[0] as number, times[1] as number, count];
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

/** Each case's median over ROUNDS rounds, the cases taking turns within a round (the machine is noisy). */
async function measure(name: string, inventory: InventoryRepository, extra?: () => [number, number]) {
  const first = new Map<string, number[]>();
  const deep = new Map<string, number[]>();
  const counts = new Map<string, number>();
  const unindexed: number[][] = [[], []];
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [label, query] of CASES) {
      const [a, b, count] = await pageMs(inventory, query);
      first.set(label, [...(first.get(label) ?? []), a]);
      deep.set(label, [...(deep.get(label) ?? []), b]);
      counts.set(label, count);
    }
    if (extra !== undefined) {
      const [a, b] = extra();
      unindexed[0]?.push(a);
      unindexed[1]?.push(b);
    }
  }
  const base = [median(first.get(CASES[0]?.[0] as string) ?? []), median(deep.get(CASES[0]?.[0] as string) ?? [])];
  process.stdout.write(`\n${name}, ${PETS} pets, page of ${PAGE}, median of ${ROUNDS} rounds\n`);
  process.stdout.write('| filter | first page ms | ratio | page after the middle ms | ratio | entries (deep page) |\n');
  process.stdout.write('|---|---:|---:|---:|---:|---:|\n');
  for (const [label] of CASES) {
    const a = median(first.get(label) ?? []);
    const b = median(deep.get(label) ?? []);
    process.stdout.write(
      `| ${label} | ${a.toFixed(2)} | ${(a / (base[0] as number)).toFixed(2)} | ${b.toFixed(2)} | ${(b / (base[1] as number)).toFixed(2)} | ${counts.get(label)} |\n`,
    );
  }
  if (extra !== undefined) {
    const a = median(unindexed[0] ?? []);
    const b = median(unindexed[1] ?? []);
    process.stdout.write(
      `| maxAvailable=2 without its index (NOT INDEXED walk) | ${a.toFixed(2)} | ${(a / (base[0] as number)).toFixed(2)} | ${b.toFixed(2)} | ${(b / (base[1] as number)).toFixed(2)} | |\n`,
    );
  }
}

async function sqlite(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-filters-'));
  const path = join(dir, 'filters.db');
  try {
    const storage = openSqliteStorage({ path });
    const filled = Date.now();
    await fill(storage.pets);
    process.stdout.write(`SQLite: ${PETS} pets stored in ${((Date.now() - filled) / 1000).toFixed(1)} s\n`);
    // The counterfactual: the same low-stock page by a walk of the rows in id order, no index to skip by.
    const raw = new Database(path, { readonly: true });
    const walk = raw.prepare(
      'SELECT id FROM pets NOT INDEXED WHERE id > ? AND quantity - held <= 2 ORDER BY id LIMIT 101',
    );
    const timed = (after: bigint): number => {
      const started = process.hrtime.bigint();
      walk.all(after);
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    try {
      await measure('SQLite', storage.inventory, () => [timed(-1n), timed(BigInt(middle))]);
    } finally {
      raw.close();
      await storage.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function postgres(): Promise<void> {
  const server = await startPostgresServer();
  try {
    const url = await server.createDatabase();
    const storage = await openPostgresStorage({ url });
    try {
      const filled = Date.now();
      await fill(storage.pets);
      // What autovacuum does within a minute of a bulk load: the planner's statistics, the expression
      // index's included, by which it tells a bound few pets are under from one most are.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query('ANALYZE pets');
      await client.end();
      process.stdout.write(`PostgreSQL: ${PETS} pets stored in ${((Date.now() - filled) / 1000).toFixed(1)} s\n`);
      await measure('PostgreSQL', storage.inventory);
    } finally {
      await storage.close();
    }
  } finally {
    await server.stop();
  }
}

/** Memory filters by a walk of the ids (see MemoryInventoryRepository.list): no index to skip by. */
async function memory(): Promise<void> {
  const store = createMemoryAdapters(systemClock);
  await fill(store.pets);
  await measure('memory', store.inventory);
}

if (storesArg === 'memory') await memory();
if (storesArg === 'sqlite' || storesArg === 'both') await sqlite();
if (storesArg === 'postgres' || storesArg === 'both') await postgres();
