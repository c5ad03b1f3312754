/**
 * The stock console's first load (DESIGN 5.3): the bytes of the page and its files as sent (brotli, as
 * Chromium asks), the first page of the stock the page then asks for, and the time from navigation to the
 * first rows in Debian's Chromium, with each number of pets stored (the service as npm start runs it,
 * over SQLite). The key is put in the tab's sessionStorage before the page loads, as after a sign-in,
 * so the time is the page's own: load, read the key's limits, read a page, draw it. The baseline, in the
 * same rounds: a fresh context's navigation to GET /livez of the same service.
 *
 * `npm run bench -- --only=console`, or alone (it builds the service first):
 * node --import tsx bench/console-load.ts [visits=15] [pets=100,1000000]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import { buildService, preparePetstore, startService } from './petstore.js';
import type { ServerProcess } from './server-process.js';
import { median } from './stats.js';

/** How many pets, and how many visits of each. */
export interface ConsoleSettings {
  readonly sizes: readonly number[];
  readonly visits: number;
}

/** One number of pets: the bytes sent and the times of every visit counted. */
export interface ConsoleRow {
  readonly pets: number;
  readonly fileBytes: number;
  readonly pageBytes: number;
  readonly firstRowsMs: readonly number[];
  readonly livezMs: readonly number[];
}

export interface ConsoleResult {
  readonly rows: readonly ConsoleRow[];
}

const FILES = ['/console', '/console/console.js', '/console/console.css'];

/** One visit: the time to the first rows, and the sizes of what the page fetched, by path and query. */
async function visit(browser: Browser, service: ServerProcess, key: string) {
  const context = await browser.newContext();
  try {
    await context.addInitScript(`sessionStorage.setItem('petstore-console.api-key', ${JSON.stringify(key)})`);
    const page = await context.newPage();
    const sizes = new Map<string, number>();
    page.on('response', (response) => {
      const url = new URL(response.url());
      sizes.set(url.pathname + url.search, Number(response.headers()['content-length'] ?? Number.NaN));
    });
    const started = performance.now();
    await page.goto(`${service.origin}/console`);
    await page.locator('table tbody tr').first().waitFor();
    return { ms: performance.now() - started, sizes };
  } finally {
    await context.close();
  }
}

/** A fresh context's navigation to GET /livez: what any first visit of the service costs the browser. */
async function baseline(browser: Browser, service: ServerProcess): Promise<number> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(`${service.origin}/livez`);
    return performance.now() - started;
  } finally {
    await context.close();
  }
}

/** Measures each size in turn; the service must have been built (the runner builds it). */
export async function runConsoleSuite(
  dir: string,
  settings: ConsoleSettings,
  progress: (line: string) => void,
): Promise<ConsoleResult> {
  const browser = await launchChromium();
  const rows: ConsoleRow[] = [];
  try {
    for (const pets of settings.sizes) {
      const db = join(dir, `console-${pets}.db`);
      const key = await preparePetstore(db, pets);
      const service = await startService(`service (${pets} pets)`, { db }, join(dir, `console-${pets}.log`));
      try {
        const firstRowsMs: number[] = [];
        const livezMs: number[] = [];
        let sizes = new Map<string, number>();
        // One visit first, not counted: the browser's and the service's first work of their life.
        for (let i = -1; i < settings.visits; i += 1) {
          const blank = await baseline(browser, service);
          const seen = await visit(browser, service, key);
          if (i < 0) continue;
          livezMs.push(blank);
          firstRowsMs.push(seen.ms);
          sizes = seen.sizes;
        }
        const fileBytes = FILES.reduce((sum, path) => sum + (sizes.get(path) ?? Number.NaN), 0);
        const pageBytes = [...sizes].find(([path]) => path.startsWith('/v1/inventory?'))?.[1] ?? Number.NaN;
        rows.push({ pets, fileBytes, pageBytes, firstRowsMs, livezMs });
        progress(`  ${pets} pets: first rows ${median(firstRowsMs).toFixed(0)} ms (median of ${settings.visits})`);
      } finally {
        await service.stop();
      }
    }
  } finally {
    await browser.close();
  }
  return { rows };
}

export function consoleSection(result: ConsoleResult, settings: ConsoleSettings): string {
  const lines = [
    "## The stock console's first load",
    '',
    `GET /console in Debian's Chromium, a fresh context each visit (nothing cached), the key in the tab's`,
    'sessionStorage before the load, as after a sign-in; time from navigation to the first row of the stock',
    `drawn; median of ${settings.visits} visits, one more first not counted. Baseline in the same rounds: a fresh`,
    "context's navigation to GET /livez. Bytes as sent: the page, its script and sheet (brotli), and the first",
    'page of 25 pets (JSON). `npm run bench -- --only=console`, or `node --import tsx bench/console-load.ts`.',
    '',
    '| pets | page, script and sheet | first page of the stock | first rows | `/livez` | ratio | every visit, ms |',
    '|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const row of result.rows) {
    const rows = median(row.firstRowsMs);
    const blank = median(row.livezMs);
    lines.push(
      `| ${row.pets.toLocaleString('en-US')} | ${row.fileBytes.toLocaleString('en-US')} B | ${row.pageBytes.toLocaleString('en-US')} B | ${rows.toFixed(0)} ms | ${blank.toFixed(0)} ms | ${(rows / blank).toFixed(1)} | ${row.firstRowsMs.map((ms) => ms.toFixed(0)).join(', ')} |`,
    );
  }
  return lines.join('\n');
}

if (import.meta.filename === process.argv[1]) {
  const [visitsArg = '15', petsArg = '100,1000000'] = process.argv.slice(2);
  const settings: ConsoleSettings = { visits: Number(visitsArg), sizes: petsArg.split(',').map(Number) };
  buildService();
  const dir = await mkdtemp(join(tmpdir(), 'petstore-console-'));
  try {
    const result = await runConsoleSuite(dir, settings, (line) => process.stdout.write(`${line}\n`));
    process.stdout.write(`\n${consoleSection(result, settings)}\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
