/**
 * Writes docs/console.png, the picture of GET /console in the README: the service as npm start runs it
 * (the console's bundle built first), over a SQLite file in a temporary folder with example pets, a key
 * and a few changes of one pet, the page opened in headless chromium (Debian's, see
 * support/chromium.ts), signed in, with that pet open.
 * Usage: npm run console:screenshot
 */
import { join } from 'node:path';
import { petId } from '../src/domain/pet-id.js';
import type { PetStatus } from '../src/domain/pet-status.js';
import { quantity } from '../src/domain/quantity.js';
import { launchChromium } from '../support/chromium.js';
import { startConsoleService } from '../tests/console/console-fixture.js';
import { buildConsole } from './build-console.js';

const OUT = join(import.meta.dirname, '..', 'docs', 'console.png');
// As the stock rule leaves them: a pet without stock is sold, a pet with stock is available or pending.
const IN_STOCK: PetStatus[] = ['available', 'available', 'pending'];
const stockOf = (i: number): number => (i * 13) % 17;
const NAMES = ['Oscar', 'Maple', 'Biscuit', 'Luna', 'Pepper', 'Shadow', 'Clover', 'Nala', 'Ziggy', 'Hazel'];
const CATEGORIES = ['Dogs', 'Cats', 'Birds', 'Fish'];

await buildConsole();
const service = await startConsoleService(
  Array.from({ length: 40 }, (_, i) => ({
    id: petId(BigInt(101 + i)),
    name: `${NAMES[i % NAMES.length]}${i < NAMES.length ? '' : ` ${Math.floor(i / NAMES.length) + 1}`}`,
    category: { id: BigInt(1 + (i % CATEGORIES.length)), name: CATEGORIES[i % CATEGORIES.length] as string },
    quantity: quantity(stockOf(i)),
    status: stockOf(i) === 0 ? 'sold' : (IN_STOCK[i % 3] as PetStatus),
  })),
  { clerk: { plan: 'pro' } },
);
try {
  const key = service.keys.clerk as string;
  for (const [delta, reason] of [
    [12, 'delivery from the breeder'],
    [-3, 'sold at the counter'],
    [-2, 'sold at the counter'],
    [5, 'returned by a customer'],
    [-4, 'sold online'],
  ] as const) {
    await service.api(key, '/inventory/103/adjustments', { method: 'POST', body: JSON.stringify({ delta, reason }) });
  }
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1500 } });
    await page.goto(`${service.url}/console`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Biscuit', exact: true }).click();
    await page.locator('#quantity-chart canvas').first().waitFor();
    await page.screenshot({ path: OUT, fullPage: true });
    process.stdout.write(`wrote ${OUT}\n`);
  } finally {
    await browser.close();
  }
} finally {
  await service.close();
}
