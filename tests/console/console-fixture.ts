import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { NodeKeyCrypto } from '../../src/adapters/system/node-key-crypto.js';
import { systemClock } from '../../src/adapters/system/system-clock.js';
import type { NewPet } from '../../src/application/ports/pet-catalog.js';
import { IssueApiKey } from '../../src/application/use-cases/issue-api-key.js';
import type { Scope } from '../../src/domain/api-key.js';
import type { Plan } from '../../src/domain/plan.js';
import { type ServiceProcess, startService } from '../../support/service-process.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';

/** The service as `npm start` runs it, over a SQLite file of its own, with the pets and keys given. */
export interface ConsoleService {
  readonly url: string;
  /** Keys by the names asked for. */
  readonly keys: Readonly<Record<string, string>>;
  /** Revokes the key of that name, as `petstore keys revoke` would, from another process meanwhile. */
  revoke(name: string): Promise<void>;
  /** Calls the API with one of the keys, as another client of the store would meanwhile. */
  api(key: string, path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export interface KeyAsked {
  readonly plan: Plan;
  readonly scopes?: readonly Scope[];
}

/** What the store holds before the service starts, besides the pets and keys. */
export interface ConsoleHistory {
  /** How many stock changes the store has recorded already (sets of the first pet, 1,000 a command). */
  readonly changes?: number;
}

/**
 * Records `changes` counts of the first pet that changed nothing (5 to 5), straight into the file: a
 * history as long as a busy store's, written in a second instead of through a write each.
 */
function recordHistory(path: string, changes: number): void {
  const db = new Database(path);
  try {
    db.prepare(
      `INSERT INTO stock_changes (pet_id, before_quantity, before_status, after_quantity, after_status, actor, at_ms, kind)
       WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       SELECT (SELECT min(id) FROM pets), 5, 'available', 5, 'available', 'key_history', ?, 'set' FROM n`,
    ).run(changes, Date.now());
  } finally {
    db.close();
  }
}

export async function startConsoleService(
  pets: readonly NewPet[],
  keysAsked: Readonly<Record<string, KeyAsked>>,
  history: ConsoleHistory = {},
): Promise<ConsoleService> {
  const temp: TempDatabase = await tempDatabase();
  const storage = openSqliteStorage({ path: temp.path });
  const keys: Record<string, string> = {};
  const ids: Record<string, string> = {};
  try {
    await storage.pets.addAll(pets);
    const crypto = new NodeKeyCrypto();
    const issue = new IssueApiKey(storage.keys, crypto, crypto, systemClock);
    for (const [name, asked] of Object.entries(keysAsked)) {
      const issued = await issue.execute({ ...asked, name: `${name} desk` });
      keys[name] = issued.key;
      ids[name] = issued.record.id;
    }
  } finally {
    await storage.close();
  }
  if ((history.changes ?? 0) > 0) recordHistory(temp.path, history.changes ?? 0);
  let service: ServiceProcess;
  try {
    service = await startService({ PETSTORE_DB: temp.path, PETSTORE_ENV: 'production' });
  } catch (error) {
    await temp.remove();
    throw error;
  }
  return {
    url: service.url,
    keys,
    revoke: async (name) => {
      const writer = openSqliteStorage({ path: temp.path });
      try {
        await writer.keys.revoke(ids[name] as string, { actor: 'admin', atMs: Date.now() });
      } finally {
        await writer.close();
      }
    },
    api: (key, path, init = {}) =>
      fetch(`${service.url}/v1${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
      }),
    close: async () => {
      await service.stop();
      await temp.remove();
    },
  };
}

/** One visit of the console: the page, and what it logged, asked for and showed as a dialog. */
export interface ConsoleVisit {
  readonly page: Page;
  readonly errors: string[];
  readonly requests: string[];
  readonly dialogs: string[];
  close(): Promise<void>;
}

export async function visitConsole(
  browser: Browser,
  url: string,
  viewport = { width: 1280, height: 900 },
): Promise<ConsoleVisit> {
  const context = await browser.newContext({ viewport, acceptDownloads: true, hasTouch: viewport.width < 600 });
  const page = await context.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  const dialogs: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('request', (request) => requests.push(request.url()));
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.goto(`${url}/console`);
  return { page, errors, requests, dialogs, close: () => context.close() };
}

/** Presses Tab until the element `target` finds has the focus: the keyboard alone, as a person would. */
export async function tabTo(page: Page, selectorOf: () => Promise<boolean>, most = 60): Promise<void> {
  for (let i = 0; i < most; i += 1) {
    await page.keyboard.press('Tab');
    if (await selectorOf()) return;
  }
  throw new Error(`the element was not reached in ${most} presses of Tab`);
}

/** Signs in with `key` as a person would, and waits for the signed-in page. */
export async function signIn(visit: ConsoleVisit, key: string): Promise<void> {
  await visit.page.getByLabel('API key').fill(key);
  await visit.page.getByRole('button', { name: 'Sign in' }).click();
  await visit.page.getByRole('button', { name: 'Sign out' }).waitFor();
}
