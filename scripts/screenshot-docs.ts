/**
 * Writes docs/docs-page.png, the picture of GET /docs in the README: the service over memory storage on
 * a free port of 127.0.0.1, the page opened in headless chromium (Debian's, see tests/support/chromium.ts).
 * Usage: npm run docs:screenshot
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createHttpApp } from '../src/adapters/http/create-http-app.js';
import { createMemoryAdapters } from '../src/adapters/memory/memory-adapters.js';
import { NodeKeyCrypto } from '../src/adapters/system/node-key-crypto.js';
import { systemClock } from '../src/adapters/system/system-clock.js';
import { createInventoryCore } from '../src/application/inventory-core.js';
import { launchChromium } from '../tests/support/chromium.js';

const OUT = join(import.meta.dirname, '..', 'docs', 'docs-page.png');

const crypto = new NodeKeyCrypto();
const core = createInventoryCore({
  ...createMemoryAdapters(systemClock),
  clock: systemClock,
  keyGenerator: crypto,
  keyHasher: crypto,
});
const app = createHttpApp({
  ...core,
  clock: systemClock,
  readiness: () => true,
  options: {
    sunsetAt: new Date('2027-06-30T00:00:00Z'),
    servers: { production: 'https://api.petstore.example/v1', staging: 'https://staging.api.petstore.example/v1' },
    trustProxy: false,
  },
});
const server = createServer(app.callback());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/docs`, { waitUntil: 'networkidle' });
  await page.getByText('List the stock levels of all pets', { exact: true }).first().waitFor();
  await page.screenshot({ path: OUT });
  process.stdout.write(`wrote ${OUT}\n`);
} finally {
  await browser.close();
  server.close();
}
