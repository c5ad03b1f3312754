/**
 * The stock console's first load (DESIGN 5.3): the bytes of the page and its files as sent (brotli, as
 * Chromium asks), the first page of the stock the page then asks for, and the time from navigation to the
 * first rows in Debian's Chromium, with 100 and with 1,000,000 pets stored (the service as npm start
 * runs it, over SQLite). The key is put in the tab's sessionStorage before the page loads, as after a
 * sign-in, so the time is the page's own: load, read the key's limits, read a page, draw it. The
 * baseline, in the same rounds: a fresh context's navigation to GET /livez of the same service.
 *
 * Usage: node --import tsx bench/console-load.ts [visits=7] [pets=100,1000000]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from '../tests/support/chromium.js';
import { buildService, preparePetstore, startService } from './petstore.js';

const [visitsArg = '7', petsArg = '100,1000000'] = process.argv.slice(2);
const VISITS = Number(visitsArg);
const SIZES = petsArg.split(',').map(Number);

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

buildService();
const dir = await mkdtemp(join(tmpdir(), 'petstore-console-'));
const browser = await launchChromium();
try {
  process.stdout.write(
    '| pets | page files (br) bytes | first stock page bytes | first rows ms (median) | GET /livez ms (median) | ratio | runs ms |\n',
  );
  process.stdout.write('|---:|---:|---:|---:|---:|---:|---|\n');
  for (const pets of SIZES) {
    const db = join(dir, `console-${pets}.db`);
    const key = await preparePetstore(db, pets);
    const service = await startService(`service (${pets} pets)`, { db }, join(dir, `service-${pets}.log`));
    try {
      const times: number[] = [];
      const baselines: number[] = [];
      let fileBytes = 0;
      let pageBytes = 0;
      // One visit first, not counted: the browser's and the service's first work of their life.
      for (let visit = -1; visit < VISITS; visit += 1) {
        // The baseline, in the same round: a fresh context's navigation to the service's smallest answer.
        const blank = await browser.newContext();
        const blankPage = await blank.newPage();
        const blankStarted = performance.now();
        await blankPage.goto(`${service.origin}/livez`);
        if (visit >= 0) baselines.push(performance.now() - blankStarted);
        await blank.close();
        // A fresh context each time: nothing cached, as a first visit.
        const context = await browser.newContext();
        await context.addInitScript(`sessionStorage.setItem('petstore-console.api-key', ${JSON.stringify(key)})`);
        const page = await context.newPage();
        const sizes = new Map<string, number>();
        page.on('response', (response) => {
          const length = Number(response.headers()['content-length'] ?? Number.NaN);
          sizes.set(new URL(response.url()).pathname + new URL(response.url()).search, length);
        });
        const started = performance.now();
        await page.goto(`${service.origin}/console`);
        await page.locator('table tbody tr').first().waitFor();
        if (visit >= 0) times.push(performance.now() - started);
        fileBytes = ['/console', '/console/console.js', '/console/console.css'].reduce(
          (sum, path) => sum + (sizes.get(path) ?? Number.NaN),
          0,
        );
        pageBytes = [...sizes].find(([path]) => path.startsWith('/v1/inventory?'))?.[1] ?? Number.NaN;
        await context.close();
      }
      process.stdout.write(
        `| ${pets} | ${fileBytes} | ${pageBytes} | ${median(times).toFixed(0)} | ${median(baselines).toFixed(0)} | ${(median(times) / median(baselines)).toFixed(1)} | ${times.map((t) => t.toFixed(0)).join(', ')} |\n`,
      );
    } finally {
      await service.stop();
    }
  }
} finally {
  await browser.close();
  await rm(dir, { recursive: true, force: true });
}
