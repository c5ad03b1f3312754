import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { chromiumAvailable, launchChromium } from '../../support/chromium.js';
import {
  type ConsoleService,
  type ConsoleVisit,
  signIn,
  startConsoleService,
  visitConsole,
} from './console-fixture.js';

// 40 pets, more than a page (25): Maple 1, Oscar 2, Maple 3... the first in a category.
const PETS = Array.from({ length: 40 }, (_, i) => ({
  id: petId(BigInt(i + 1)),
  name: `${i % 2 === 0 ? 'Maple' : 'Oscar'} ${i + 1}`,
  quantity: quantity(5),
  status: 'available' as const,
  ...(i === 0 ? { category: { id: 1n, name: 'Dogs' } } : {}),
}));

const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

const petNumbers = (page: Page): Promise<string[]> =>
  page
    .getByRole('table', { name: /Stock levels/ })
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((row) => /#(-?[0-9]+)/.exec(row.children[0]?.textContent ?? '')?.[1] ?? ''));

const apiRequests = (visit: ConsoleVisit, path: string): string[] =>
  visit.requests.filter((url) => new URL(url).pathname.startsWith(path));

async function openPet(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name, exact: true }).click();
  await page.getByRole('heading', { name: new RegExp(`^${name} \\(pet`) }).waitFor();
}

describe.skipIf(!chromiumAvailable())('the stock console as staff use it', () => {
  let service: ConsoleService;
  let browser: Browser;
  beforeAll(async () => {
    [service, browser] = await Promise.all([
      startConsoleService(
        PETS,
        {
          clerk: { plan: 'business' },
          other: { plan: 'business' },
          leaving: { plan: 'business' },
          thrifty: { plan: 'free' },
        },
        { changes: 100_000 },
      ),
      launchChromium(),
    ]);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('signs in over 100,000 recorded changes with at most 3 requests of the feed', async () => {
    const visit = await visitConsole(browser, service.url);
    await signIn(visit, service.keys.clerk as string);
    await expect.poll(() => petNumbers(visit.page)).toHaveLength(25);
    expect(apiRequests(visit, '/v1/inventory/changes').length).toBeLessThanOrEqual(3);
    expect(apiRequests(visit, '/v1/inventory/changes')[0]).toContain('after=latest');
    await visit.close();
  });

  it('shows each pet’s name (and category) in its row and in the pet’s view', async () => {
    const visit = await visitConsole(browser, service.url);
    const { page } = visit;
    await signIn(visit, service.keys.clerk as string);
    await page.getByRole('button', { name: 'Maple 1', exact: true }).waitFor();
    expect(await page.getByRole('row', { name: /Maple 1 #1 · Dogs/ }).count()).toBe(1);
    await openPet(page, 'Oscar 2');
    expect(await page.getByRole('heading', { name: 'Oscar 2 (pet 2)' }).count()).toBe(1);
    await visit.close();
  });

  it('finds pets by part of their name in any case, and a pet by its number', async () => {
    const visit = await visitConsole(browser, service.url);
    const { page } = visit;
    await signIn(visit, service.keys.clerk as string);
    await page.getByLabel('Search').fill('osc');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(async () => (await petNumbers(page)).slice(0, 3)).toEqual(['2', '4', '6']);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    expect(await petNumbers(page)).toHaveLength(20);
    await page.getByLabel('Search').fill('7');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('heading', { name: 'Maple 7 (pet 7)' }).waitFor();
    await visit.close();
  });

  it('follows a change made through the API in the open pet: its numbers, history and the key’s name', async () => {
    const visit = await visitConsole(browser, service.url);
    const { page } = visit;
    await signIn(visit, service.keys.clerk as string);
    await openPet(page, 'Maple 11');
    const written = await service.api(service.keys.other as string, '/inventory/11', {
      method: 'PATCH',
      body: '{"quantity":13,"reason":"delivery"}',
    });
    expect(written.status).toBe(200);
    await expect.poll(() => page.locator('[data-field="quantity"]').textContent(), { timeout: 15_000 }).toBe('13');
    const history = page.getByRole('table', { name: /History/ });
    expect(await history.locator('tbody tr').first().textContent()).toMatch(/other desk.*set.*5 \(available\).*13/s);
    await visit.close();
  });

  it('undoes its own write with a new recorded change, and refuses to undo after someone else’s', async () => {
    const visit = await visitConsole(browser, service.url);
    const { page } = visit;
    await signIn(visit, service.keys.clerk as string);
    await openPet(page, 'Oscar 12');
    await page.getByLabel('Delta').fill('-2');
    await page.getByRole('button', { name: 'Adjust' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/Saved: quantity 3/);
    // A saved field clears, so that Enter cannot send it twice (once the page's reload after the save ends).
    await expect.poll(() => page.getByLabel('Delta').inputValue()).toBe('');
    await page.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/Undone: quantity 5/);
    const history = page.getByRole('table', { name: /History/ });
    expect(await history.locator('tbody tr').first().textContent()).toMatch(
      /set.*3 \(available\).*5.*Undo of "adjust by -2"/s,
    );

    await page.getByLabel('Quantity', { exact: true }).fill('8');
    await page.getByRole('button', { name: 'Set', exact: true }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/Saved: quantity 8/);
    const meanwhile = await service.api(service.keys.other as string, '/inventory/12/adjustments', {
      method: 'POST',
      body: '{"delta":1}',
    });
    expect(meanwhile.status).toBe(200);
    await page.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/Not undone: someone else changed/);
    expect(await (await service.api(service.keys.other as string, '/inventory/12')).json()).toMatchObject({
      quantity: 9,
    });
    await visit.close();
  });

  it('exports every page of the list as the filters select it, as CSV with names', async () => {
    const visit = await visitConsole(browser, service.url);
    const { page } = visit;
    await signIn(visit, service.keys.clerk as string);
    await page.getByLabel('Search').fill('maple');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => petNumbers(page)).toHaveLength(20);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    const lines = (await readFile(await download.path(), 'utf8')).trimEnd().split('\r\n');
    expect(lines[0]).toBe('petId,name,category,quantity,reserved,available,status');
    expect(lines).toHaveLength(21);
    expect(lines[1]).toBe('1,Maple 1,Dogs,5,0,5,available');
    await expect.poll(() => page.getByText(/Exported 20 pets/).count()).toBe(1);
    await visit.close();
  });

  it('fits a 390 px phone without sideways scrolling, and axe-core finds nothing serious with a pet open', async () => {
    const visit = await visitConsole(browser, service.url, { width: 390, height: 844 });
    const { page } = visit;
    await signIn(visit, service.keys.clerk as string);
    await openPet(page, 'Maple 1');
    await page.locator('#quantity-chart canvas').first().waitFor();
    const widths = (await page.evaluate(
      '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
    )) as { scroll: number; client: number };
    const wide = await page.evaluate(
      "[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)).slice(0, 8).join('; ')",
    );
    expect(widths.scroll, String(wide)).toBeLessThanOrEqual(widths.client);
    // Evaluated through the browser's debugging protocol, which the page's CSP does not govern.
    await page.evaluate(await readFile(AXE_SOURCE, 'utf8'));
    const violations = (await page.evaluate(
      "axe.run(document).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))",
    )) as string[];
    expect(violations).toEqual([]);
    await visit.close();
  });

  it('shows every sign-in failure on the sign-in form: a service out of reach, a key fetch cannot send', async () => {
    const visit = await visitConsole(browser, service.url);
    const { page } = visit;
    await page.route('**/v1/rate_limit', (route) => route.abort());
    await page.getByLabel('API key').fill(service.keys.clerk as string);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const form = page.locator('form.sign-in');
    await expect
      .poll(() => form.getByRole('alert').textContent())
      .toMatch(/Not signed in\. The service cannot be reached/);
    await page.unroute('**/v1/rate_limit');
    await page.getByLabel('API key').fill('psk_café');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => form.getByRole('alert').textContent()).toMatch(/Not signed in\. This key is not valid/);
    expect(apiRequests(visit, '/v1').length).toBe(1);
    await visit.close();
  });

  it('signs out by itself when its key is revoked, says why, and sends nothing more', async () => {
    const visit = await visitConsole(browser, service.url);
    const { page } = visit;
    await signIn(visit, service.keys.leaving as string);
    await service.revoke('leaving');
    await expect
      .poll(() => page.getByRole('alert').first().textContent(), { timeout: 30_000 })
      .toMatch(/Signed out\. This key is not valid .*Ask for a new one\./);
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    const sent = apiRequests(visit, '/v1').length;
    await page.waitForTimeout(5_000);
    expect(apiRequests(visit, '/v1').length).toBe(sent);
    await visit.close();
  });

  it('never holds a write behind a ban: says "not sent", keeps the input, and sends nothing later', async () => {
    const key = service.keys.thrifty as string;
    const visit = await visitConsole(browser, service.url);
    const { page } = visit;
    await signIn(visit, key);
    await openPet(page, 'Maple 21');
    // Spend the rest of the free key's minute through the API.
    for (let i = 0; i < 60; i += 1) await (await service.api(key, '/inventory?limit=1')).arrayBuffer();
    await page.getByLabel('Quantity', { exact: true }).fill('2');
    await page.getByRole('button', { name: 'Set', exact: true }).click();
    await expect
      .poll(() => page.getByRole('alert').first().textContent())
      .toMatch(/Not sent\..*What you typed is kept/);
    expect(await page.getByLabel('Quantity', { exact: true }).inputValue()).toBe('2');
    expect(await page.getByRole('button', { name: 'Retry' }).count()).toBe(1);
    const writes = () => visit.requests.filter((url) => new URL(url).pathname === '/v1/inventory/21').length;
    const before = writes();
    await page.waitForTimeout(3_000);
    expect(writes()).toBe(before);
    await visit.close();
  });
});
