import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { type AdminCliDeps, runAdminCli } from '../../src/adapters/cli/admin-cli.js';
import { MemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.js';
import { openSqliteStorage, type SqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { NodeKeyCrypto } from '../../src/adapters/system/node-key-crypto.js';
import { createInventoryCore, type InventoryCore } from '../../src/application/inventory-core.js';
import { ManualClock } from '../../src/testing/index.js';
import { tempDatabase } from '../../support/temp-database.js';
import { webhookAdminOf } from '../../support/webhook-admin.js';

/** What one run of the CLI did. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The admin CLI wired as the composition root wires it, over a temporary SQLite file. */
export interface CliHarness {
  readonly storage: SqliteStorage;
  /** The use cases the CLI drives, over the same store. */
  readonly core: InventoryCore;
  readonly clock: ManualClock;
  readonly crypto: NodeKeyCrypto;
  readonly dir: string;
  run(...argv: string[]): Promise<CliRun>;
  /** Runs as `run` does, with stderr taken for a terminal. */
  runOnTerminal(...argv: string[]): Promise<CliRun>;
  /** Writes a file into the temporary folder and returns its path. */
  file(name: string, content: string | Uint8Array): Promise<string>;
  /** Every row of every table, to show that a refused command wrote nothing. */
  tables(): Record<string, unknown[]>;
  close(): Promise<void>;
}

export const START = Date.UTC(2026, 0, 2, 3, 4, 5);

async function runCli(argv: readonly string[], deps: AdminCliDeps, stderrIsTerminal: boolean): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runAdminCli(argv, deps, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    stderrIsTerminal,
  });
  return { code, stdout, stderr };
}

export async function cliHarness(): Promise<CliHarness> {
  const temp = await tempDatabase();
  const storage = openSqliteStorage({ path: temp.path });
  const clock = new ManualClock(START);
  const crypto = new NodeKeyCrypto();
  const limiter = new MemoryRateLimiter(clock);
  const core = createInventoryCore({ ...storage, limiter, clock, keyGenerator: crypto, keyHasher: crypto });
  const deps: AdminCliDeps = { ...core, clock, webhooks: webhookAdminOf(storage.webhooks, clock) };
  return {
    storage,
    core,
    clock,
    crypto,
    dir: temp.dir,
    run: (...argv) => runCli(argv, deps, false),
    runOnTerminal: (...argv) => runCli(argv, deps, true),
    async file(name, content) {
      const path = join(temp.dir, name);
      await writeFile(path, content);
      return path;
    },
    tables() {
      const db = new Database(temp.path, { readonly: true });
      db.defaultSafeIntegers(true);
      try {
        const tables = ['pets', 'stock_changes', 'orders', 'api_keys', 'api_key_audit'];
        return Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all()]));
      } finally {
        db.close();
      }
    },
    async close() {
      await storage.close();
      await temp.remove();
    },
  };
}

/**
 * Runs `argv` and checks that it was refused as bad input: exit code 1, nothing on stdout, one line on
 * stderr naming the problem (`fragment`), and not a row written anywhere.
 */
export async function expectRefused(cli: CliHarness, argv: readonly string[], fragment: string): Promise<void> {
  const before = cli.tables();
  const result = await cli.run(...argv);
  expect(result).toMatchObject({ code: 1, stdout: '' });
  expect(result.stderr).toMatch(/^error: [^\n]+\n$/);
  expect(result.stderr).toContain(fragment);
  expect(cli.tables()).toEqual(before);
}
