/**
 * Writes docs/docs-page.png, the picture of GET /docs in the README: the service over memory storage on
 * a free port of 127.0.0.1, the page opened in headless chromium (Debian's, see support/chromium.ts).
 * Usage: npm run docs:screenshot
 */
import { join } from 'node:path';
import { launchChromium } from '../support/chromium.js';
import { withExampleService } from './served-openapi.js';

const OUT = join(import.meta.dirname, '..', 'docs', 'docs-page.png');

await withExampleService(async (origin) => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${origin}/docs`, { waitUntil: 'networkidle' });
    await page.getByText('List the stock levels of all pets', { exact: true }).first().waitFor();
    await page.screenshot({ path: OUT });
    process.stdout.write(`wrote ${OUT}\n`);
  } finally {
    await browser.close();
  }
});
