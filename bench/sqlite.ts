/**
 * Benchmarks the SQLite storage on a real file in a temporary folder:
 * - importing 1,000,000 pets through PetCatalog.addAll (one transaction): seconds and peak RSS, each
 *   run in a fresh process so that its peak RSS is its own;
 * - the same import from a JSON file through the admin CLI (`pets import`: lossless parse, validation);
 * - single-row stock updates per second through InventoryRepository.update, with synchronous FULL and
 *   NORMAL, one at a time (each awaited) and 50 in flight (the group commit's case).
 * Each figure is the median of 3 runs. Usage: node --import tsx bench/sqlite.ts
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAdminCli } from '../src/adapters/cli/admin-cli.js';
import { openSqliteStorage } from '../src/adapters/sqlite/sqlite-storage.js';
import { NodeKeyCrypto } from '../src/adapters/system/node-key-crypto.js';
import { systemClock } from '../src/adapters/system/system-clock.js';
import type { NewPet } from '../src/application/ports/pet-catalog.js';
import { AddPets } from '../src/application/use-cases/add-pets.js';
import { ImportOrders } from '../src/application/use-cases/import-orders.js';
import { IssueApiKey } from '../src/application/use-cases/issue-api-key.js';
import { ListApiKeys } from '../src/application/use-cases/list-api-keys.js';
import { RevokeApiKey } from '../src/application/use-cases/revoke-api-key.js';
import { type InventoryItem, withStock } from '../src/domain/inventory-item.js';
import { petId } from '../src/domain/pet-id.js';
import { quantity } from '../src/domain/quantity.js';

const RUNS = 3;
const IMPORT_PETS = 1_000_000;
const UPDATE_PETS = 10_000;
const UPDATE_SECONDS = 3;
const IN_FLIGHT = 50;

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

interface ImportRun {
  readonly seconds: number;
  /** RSS once the input is in memory (the pets, or nothing for the CLI), before the import starts. */
  readonly rssBeforeMiB: number;
  readonly peakRssMiB: number;
}

const rssMiB = (): number => process.memoryUsage().rss / 2 ** 20;

/** Times `work` and prints an ImportRun as JSON: the parent reads it, and this process's peak RSS is its own. */
async function reportImport(work: () => Promise<void>): Promise<void> {
  const rssBeforeMiB = rssMiB();
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  const run: ImportRun = { seconds, rssBeforeMiB, peakRssMiB: process.resourceUsage().maxRSS / 1024 };
  process.stdout.write(`${JSON.stringify(run)}\n`);
}

const petNumber = (i: number) => ({ id: i + 1, quantity: i % 100, status: i % 100 === 0 ? 'sold' : 'available' });

async function repositoryImportOnce(path: string): Promise<void> {
  const pets: NewPet[] = Array.from({ length: IMPORT_PETS }, (_, i) => {
    const p = petNumber(i);
    return { id: petId(BigInt(p.id)), name: `pet ${p.id}`, quantity: quantity(p.quantity), status: p.status } as NewPet;
  });
  const storage = openSqliteStorage({ path });
  await reportImport(async () => {
    const added = await storage.pets.addAll(pets);
    storage.close();
    if (!added.ok || added.value !== IMPORT_PETS) throw new Error(`import failed: ${JSON.stringify(added)}`);
  });
}

async function cliImportOnce(path: string, file: string): Promise<void> {
  const storage = openSqliteStorage({ path });
  const crypto = new NodeKeyCrypto();
  const deps = {
    issueApiKey: new IssueApiKey(storage.keys, crypto, crypto, systemClock),
    listApiKeys: new ListApiKeys(storage.keys),
    revokeApiKey: new RevokeApiKey(storage.keys, crypto, systemClock),
    addPets: new AddPets(storage.pets),
    importOrders: new ImportOrders(storage.orders),
  };
  await reportImport(async () => {
    const code = await runAdminCli(['pets', 'import', file], deps, { stdout: () => {}, stderr: () => {} });
    storage.close();
    if (code !== 0) throw new Error(`pets import exited with ${code}`);
  });
}

async function writePetsFile(file: string): Promise<void> {
  const out = createWriteStream(file);
  out.write('[\n');
  for (let i = 0; i < IMPORT_PETS; i += 1) {
    const p = petNumber(i);
    const line = `{"id":${p.id},"name":"pet ${p.id}","quantity":${p.quantity},"status":"${p.status}"}`;
    if (!out.write(i + 1 < IMPORT_PETS ? `${line},\n` : `${line}\n]\n`)) {
      await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
  }
  await new Promise((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve(undefined))),
  );
}

function importInChild(...args: string[]): ImportRun {
  const script = fileURLToPath(import.meta.url);
  const child = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`the import run failed: ${child.stderr}`);
  return JSON.parse(child.stdout) as ImportRun;
}

function reportImports(title: string, runs: readonly ImportRun[]): void {
  console.log(`\n${title}:`);
  for (const r of runs) console.log(`  run: ${r.seconds.toFixed(2)} s, peak RSS ${r.peakRssMiB.toFixed(0)} MiB`);
  const seconds = median(runs.map((r) => r.seconds)).toFixed(2);
  const peak = median(runs.map((r) => r.peakRssMiB)).toFixed(0);
  const before = median(runs.map((r) => r.rssBeforeMiB)).toFixed(0);
  console.log(`  median: ${seconds} s, peak RSS ${peak} MiB (RSS before the import started: ${before} MiB)`);
}

const increment = (c: InventoryItem): InventoryItem => withStock(c, quantity((c.quantity + 1) % 1_000_000));

/** Updates per second for UPDATE_SECONDS, with `inFlight` updates awaited at a time. */
async function updatesPerSecond(path: string, synchronous: 'FULL' | 'NORMAL', inFlight: number): Promise<number> {
  const storage = openSqliteStorage({ path, synchronous });
  await storage.pets.addAll(
    Array.from({ length: UPDATE_PETS }, (_, i) => ({
      id: petId(i + 1),
      name: `pet ${i}`,
      quantity: quantity(1),
      status: 'available' as const,
    })),
  );
  let done = 0;
  const deadline = performance.now() + UPDATE_SECONDS * 1000;
  const lane = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const id = petId(1 + Math.floor(Math.random() * UPDATE_PETS));
      await storage.inventory.update(id, increment, 'bench', Date.now());
      done += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, lane));
  const rate = done / ((performance.now() - started) / 1000);
  storage.close();
  return rate;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-bench-'));
  try {
    console.log(`machine: ${availableParallelism()} CPUs (nproc), node ${process.version}, ${process.platform}`);
    console.log(`database files in ${dir}`);
    const runs = Array.from({ length: RUNS }, (_, run) => run);
    const count = IMPORT_PETS.toLocaleString('en');
    reportImports(
      `import of ${count} pets through PetCatalog.addAll, one transaction`,
      runs.map((run) => importInChild('repository-import', join(dir, `repository-${run}.db`))),
    );
    const petsFile = join(dir, 'pets.json');
    await writePetsFile(petsFile);
    reportImports(
      `import of ${count} pets from a JSON file with the CLI's pets import`,
      runs.map((run) => importInChild('cli-import', join(dir, `cli-${run}.db`), petsFile)),
    );

    console.log(`\nsingle-row updates per second (${UPDATE_SECONDS} s a run, ${UPDATE_PETS} pets, median of ${RUNS}):`);
    console.log('| synchronous | in flight | updates/s (median) | runs |');
    console.log('|---|---|---|---|');
    let file = 0;
    for (const synchronous of ['FULL', 'NORMAL'] as const) {
      for (const inFlight of [1, IN_FLIGHT]) {
        const rates: number[] = [];
        for (let run = 0; run < RUNS; run += 1) {
          file += 1;
          rates.push(await updatesPerSecond(join(dir, `updates-${file}.db`), synchronous, inFlight));
        }
        const runs = rates.map((r) => r.toFixed(0)).join(', ');
        console.log(`| ${synchronous} | ${inFlight} | ${median(rates).toFixed(0)} | ${runs} |`);
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const [mode, path, file] = process.argv.slice(2);
if (mode === 'repository-import' && path !== undefined) await repositoryImportOnce(path);
else if (mode === 'cli-import' && path !== undefined && file !== undefined) await cliImportOnce(path, file);
else await main();
