/**
 * One import of the SQLite benchmark, run in a fresh process so that its peak RSS is its own. Prints an
 * ImportRun as JSON on stdout.
 * Usage: node --import tsx bench/sqlite-import.ts <raw|repository|cli> <database> <pets> [pets.json]
 * - raw: better-sqlite3 alone, one prepared INSERT of id, name, status, quantity a pet in one
 *   transaction, from plain arrays: the floor any import pays;
 * - repository: PetCatalog.addAll of the pets held in memory as domain values (one transaction);
 * - cli: the admin CLI's `pets import` of a JSON file (streamed lossless parse, validation, addStream).
 */
import Database from 'better-sqlite3';
import { runAdminCli } from '../src/adapters/cli/admin-cli.js';
import { MemoryRateLimiter } from '../src/adapters/memory/memory-rate-limiter.js';
import { openSqliteStorage } from '../src/adapters/sqlite/sqlite-storage.js';
import { NodeKeyCrypto } from '../src/adapters/system/node-key-crypto.js';
import { NodeWebhookSecrets } from '../src/adapters/system/node-webhook-secrets.js';
import { systemClock } from '../src/adapters/system/system-clock.js';
import { webhookUrlCheck } from '../src/adapters/webhooks/webhook-url-policy.js';
import { createInventoryCore } from '../src/application/inventory-core.js';
import { createWebhookAdmin } from '../src/application/webhook-core.js';
import { benchPet } from './petstore.js';
import { procStatusBytes } from './server-process.js';

/** What one import measured. */
export interface ImportRun {
  readonly seconds: number;
  /** RSS once the input is in memory (the pets, or nothing for the CLI), before the import starts. */
  readonly rssBeforeBytes: number;
  readonly peakRssBytes: number;
}

async function report(work: () => Promise<void>): Promise<void> {
  const rssBeforeBytes = process.memoryUsage().rss;
  const started = performance.now();
  await work();
  const run: ImportRun = {
    seconds: (performance.now() - started) / 1000,
    rssBeforeBytes,
    // VmHWM, not rusage's maxRSS: a spawned child's ru_maxrss starts from its parent's size at the fork.
    peakRssBytes: procStatusBytes(process.pid, 'VmHWM') ?? process.resourceUsage().maxRSS * 1024,
  };
  process.stdout.write(`${JSON.stringify(run)}\n`);
}

async function rawImport(path: string, pets: number): Promise<void> {
  // The schema comes from the service's own migrations; the rows go in through a bare connection.
  await openSqliteStorage({ path }).close();
  const db = new Database(path);
  db.pragma('synchronous = FULL');
  const rows = Array.from({ length: pets }, (_, i) => {
    const p = benchPet(i);
    return [Number(p.id), p.name, p.status, p.quantity] as const;
  });
  const insert = db.prepare('INSERT INTO pets (id, name, status, quantity) VALUES (?, ?, ?, ?)');
  const insertAll = db.transaction(() => {
    for (const row of rows) insert.run(...row);
  });
  await report(async () => {
    insertAll.immediate();
    db.close();
  });
}

async function repositoryImport(path: string, pets: number): Promise<void> {
  const all = Array.from({ length: pets }, (_, i) => benchPet(i));
  const storage = openSqliteStorage({ path });
  await report(async () => {
    const added = await storage.pets.addAll(all);
    await storage.close();
    if (!added.ok || added.value !== pets) throw new Error(`import failed: ${JSON.stringify(added)}`);
  });
}

async function cliImport(path: string, file: string): Promise<void> {
  const storage = openSqliteStorage({ path });
  const crypto = new NodeKeyCrypto();
  const ports = { ...storage, limiter: new MemoryRateLimiter(systemClock), keyGenerator: crypto, keyHasher: crypto };
  const deps = {
    ...createInventoryCore({ ...ports, clock: systemClock }),
    clock: systemClock,
    webhooks: createWebhookAdmin({
      webhooks: storage.webhooks,
      clock: systemClock,
      secrets: new NodeWebhookSecrets(),
      checkUrl: webhookUrlCheck(false),
    }),
  };
  await report(async () => {
    const code = await runAdminCli(['pets', 'import', file], deps, { stdout: () => {}, stderr: () => {} });
    await storage.close();
    if (code !== 0) throw new Error(`pets import exited with ${code}`);
  });
}

const [mode, path, pets, file] = process.argv.slice(2);
if (path === undefined || pets === undefined)
  throw new Error('usage: sqlite-import.ts <mode> <database> <pets> [file]');
if (mode === 'raw') await rawImport(path, Number(pets));
else if (mode === 'repository') await repositoryImport(path, Number(pets));
else if (mode === 'cli' && file !== undefined) await cliImport(path, file);
else throw new Error(`unknown import mode ${mode}`);
