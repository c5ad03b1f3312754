import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../src/adapters/http/console-page.js';
import { petId } from '../../src/domain/pet-id.js';
import type { PetStatus } from '../../src/domain/pet-status.js';
import { quantity } from '../../src/domain/quantity.js';
import { chromiumAvailable, launchChromium } from '../../support/chromium.js';
import { type ConsoleService, signIn, startConsoleService, tabTo, visitConsole } from './console-fixture.js';

const STATUSES: PetStatus[] = ['available', 'pending', 'sold'];
const NAMES = ['Maple', 'Oscar', 'Bella', 'Rex', 'Luna'];
// 60 pets: more than a page of the table (25); pets 1 to 60 with 0 to 9 on hand and each status, named
// Maple 1, Oscar 2, Bella 3, Rex 4, Luna 5, Maple 6...
const PETS = Array.from({ length: 60 }, (_, i) => ({
  id: petId(BigInt(i + 1)),
  name: `${NAMES[i % 5]} ${i + 1}`,
  quantity: quantity((i * 7) % 10),
  status: STATUSES[i % 3] as PetStatus,
}));

const HOSTILE = '<img src=x onerror=alert(1)>';

const isFocused = (locator: Locator) => () =>
  locator.evaluate((element) => element === element.ownerDocument.activeElement);

/** The text of the cells of one column of the stock table, by its header's position; the pet's number for the first. */
async function column(page: Page, index: number): Promise<string[]> {
  return page
    .getByRole('table', { name: /Stock levels/ })
    .locator('tbody tr')
    .evaluateAll(
      (rows, i) =>
        rows.map((row) =>
          i === 0
            ? (/#(-?[0-9]+)/.exec(row.children[0]?.textContent ?? '')?.[1] ?? '')
            : (row.children[i]?.textContent?.trim() ?? ''),
        ),
      index,
    );
}

const nameOf = (id: number): string => `${NAMES[(id - 1) % 5]} ${id}`;

describe('GET /console, its headers', () => {
  let service: ConsoleService;
  beforeAll(async () => {
    service = await startConsoleService([], {});
  }, 30_000);
  afterAll(() => service?.close());

  it('answers the page without a key, with no inline script, under a CSP that allows only this origin', async () => {
    const response = await fetch(`${service.url}/console`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toMatch(/script-src 'self'(;|$)/);
    expect(CONSOLE_CSP).not.toMatch(/unsafe|https?:|\*/);
    // Counted per client address, as every request without a key is.
    expect(response.headers.get('x-ratelimit-limit')).toBe('60');
    const html = await response.text();
    expect(html.match(/<script[^>]*>/g)).toEqual(['<script src="console/console.js" defer>']);
  });

  it('serves its script and sheet from memory, compressed, with a tag that answers 304', async () => {
    for (const [path, type] of [
      ['/console/console.js', 'text/javascript; charset=utf-8'],
      ['/console/console.css', 'text/css; charset=utf-8'],
    ] as const) {
      const response = await fetch(`${service.url}${path}`, { headers: { 'accept-encoding': 'br' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(type);
      expect(response.headers.get('content-encoding')).toBe('br');
      const etag = response.headers.get('etag') as string;
      await response.arrayBuffer();
      const again = await fetch(`${service.url}${path}`, {
        headers: { 'accept-encoding': 'br', 'if-none-match': etag },
      });
      expect(again.status).toBe(304);
    }
  });
});

describe.skipIf(!chromiumAvailable())('the stock console in a real browser', () => {
  let service: ConsoleService;
  let browser: Browser;
  beforeAll(async () => {
    [service, browser] = await Promise.all([
      startConsoleService(PETS, {
        clerk: { plan: 'business' },
        auditor: { plan: 'business', scopes: ['inventory:read'] },
        other: { plan: 'business' },
        thrifty: { plan: 'free' },
      }),
      launchChromium(),
    ]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('refuses a wrong key on the sign-in form, in plain words that say what to do', async () => {
    const visit = await visitConsole(browser, service.url);
    await visit.page.getByLabel('API key').fill(`psk_${'A'.repeat(40)}`);
    await visit.page.getByRole('button', { name: 'Sign in' }).click();
    await expect
      .poll(() => visit.page.getByRole('alert').textContent())
      .toMatch(/Not signed in\. This key is not valid .*Ask for a new one\./);
    expect(await visit.page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    expect(await visit.page.evaluate('sessionStorage.length')).toBe(0);
    await visit.close();
  });

  it('signs in, shows a page of rows with the five headers, pages on, keeps the key in sessionStorage only, and signs out', async () => {
    const visit = await visitConsole(browser, service.url);
    const { page } = visit;
    await signIn(visit, service.keys.clerk as string);
    const headers = await page
      .getByRole('table', { name: /Stock levels/ })
      .getByRole('columnheader')
      .allTextContents();
    expect(headers).toEqual(['Pet', 'Quantity', 'Reserved', 'Available', 'Status']);
    await expect.poll(() => column(page, 0)).toHaveLength(25);
    expect((await column(page, 0)).slice(0, 3)).toEqual(['1', '2', '3']);
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(async () => (await column(page, 0))[0]).toBe('26');
    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(async () => (await column(page, 0))[0]).toBe('1');
    expect(await page.getByText(/Signed in as clerk desk/).count()).toBe(1);
    // Plenty left: the page does not trouble the person with the rate.
    expect(await page.getByText(/Few requests left/).count()).toBe(0);
    const stored = (await page.evaluate(
      '({ session: Object.keys(sessionStorage).map((name) => sessionStorage.getItem(name)), local: localStorage.length, url: location.href })',
    )) as { session: string[]; local: number; url: string };
    expect(stored.session).toEqual([service.keys.clerk]);
    expect(stored.local).toBe(0);
    expect(stored.url).not.toContain('psk_');
    expect(visit.requests.every((url) => !url.includes('psk_'))).toBe(true);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    expect(visit.errors).toEqual([]);
    await visit.close();
  });

  it('filters by status and by low stock', async () => {
    const visit = await visitConsole(browser, service.url);
    const { page } = visit;
    await signIn(visit, service.keys.clerk as string);
    await page.getByLabel('Status').selectOption('sold');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(async () => new Set(await column(page, 4))).toEqual(new Set(['sold']));
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Low stock at or below').fill('2');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const expected = PETS.filter((pet) => pet.quantity <= 2).map((pet) => String(pet.id));
    await expect.poll(() => column(page, 0)).toEqual(expected);
    expect((await column(page, 3)).every((available) => Number(available) <= 2)).toBe(true);
    await visit.close();
  });

  it('opens a pet, sets and adjusts it with a reason, and its history and chart grow', async () => {
    const visit = await visitConsole(browser, service.url);
    const { page } = visit;
    await signIn(visit, service.keys.clerk as string);
    await page.getByRole('button', { name: nameOf(4), exact: true }).click();
    await page.getByRole('heading', { name: `${nameOf(4)} (pet 4)` }).waitFor();
    const caption = page.locator('#chart-caption');
    expect(await caption.textContent()).toBe('Quantity over time: 0 changes');
    await page.getByLabel('Quantity', { exact: true }).fill('12');
    await page.getByRole('button', { name: 'Set', exact: true }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/Saved: quantity 12/);
    await page.getByLabel('Delta').fill('-5');
    await page.getByLabel('Reason', { exact: true }).fill('sold two pairs and one');
    await page.getByRole('button', { name: 'Adjust' }).click();
    await expect.poll(() => caption.textContent()).toBe('Quantity over time: 2 changes');
    expect(await page.locator('[data-field="quantity"]').textContent()).toBe('7');
    const history = page.getByRole('table', { name: /History/ });
    expect(await history.locator('tbody tr').first().textContent()).toMatch(
      /adjust.*12 \(available\).*7 \(available\).*sold two pairs and one/s,
    );
    expect(await page.locator('#quantity-chart canvas').count()).toBeGreaterThan(0);
    // The row of the table shows the new count too.
    await expect.poll(async () => (await column(page, 1))[3]).toBe('7');
    expect(visit.errors).toEqual([]);
    await visit.close();
  });

  it('meets a change made meanwhile through the API with a 412: shows the current values and asks again', async () => {
    const visit = await visitConsole(browser, service.url);
    const { page } = visit;
    await signIn(visit, service.keys.clerk as string);
    await page.getByLabel('Search').fill('5');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('heading', { name: `${nameOf(5)} (pet 5)` }).waitFor();
    const meanwhile = await service.api(service.keys.other as string, '/inventory/5', {
      method: 'PATCH',
      body: '{"quantity":33,"reason":"delivery"}',
    });
    expect(meanwhile.status).toBe(200);
    const held = await service.api(service.keys.other as string, '/inventory/5/reservations', {
      method: 'POST',
      body: '{"quantity":3}',
    });
    expect(held.status).toBe(201);
    await page.getByLabel('Quantity', { exact: true }).fill('1');
    await page.getByRole('button', { name: 'Set', exact: true }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toMatch(/someone else changed this pet.*nothing was written.*quantity 33, reserved 3/);
    expect(await page.locator('[data-field="quantity"]').textContent()).toBe('33');
    // What is available is the API's figure, shown as sent.
    expect(await page.locator('[data-field="available"]').textContent()).toBe('30');
    // What the person typed stays: never the other person's value.
    expect(await page.getByLabel('Quantity', { exact: true }).inputValue()).toBe('1');
    // Asked again, the person sends again: now against the version they were shown.
    await page.getByLabel('Quantity', { exact: true }).fill('30');
    await page.getByRole('button', { name: 'Set', exact: true }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toMatch(/Saved: quantity 30, available 27\./);
    const entry = await service.api(service.keys.other as string, '/inventory/5');
    expect(await entry.json()).toMatchObject({ quantity: 30 });
    await visit.close();
  });

  it('shows a change made through the API in the table without a reload', async () => {
    const visit = await visitConsole(browser, service.url);
    const { page } = visit;
    await signIn(visit, service.keys.clerk as string);
    await expect.poll(async () => (await column(page, 0))[9]).toBe('10');
    await page.evaluate('window.stillHere = true');
    const write = await service.api(service.keys.other as string, '/inventory/10', {
      method: 'PATCH',
      body: '{"quantity":444}',
    });
    expect(write.status).toBe(200);
    await expect.poll(async () => (await column(page, 1))[9], { timeout: 15_000 }).toBe('444');
    expect(await page.evaluate('window.stillHere')).toBe(true);
    await visit.close();
  });

  it('shows a read-only key the stock without any write control', async () => {
    const visit = await visitConsole(browser, service.url);
    const { page } = visit;
    await signIn(visit, service.keys.auditor as string);
    await expect.poll(() => column(page, 0)).toHaveLength(25);
    expect(await page.getByText('(read only)').count()).toBe(1);
    await page.getByRole('button', { name: nameOf(2), exact: true }).click();
    await page.getByRole('heading', { name: `${nameOf(2)} (pet 2)` }).waitFor();
    expect(await page.getByText('This key reads only').count()).toBe(1);
    for (const name of ['Set', 'Adjust']) expect(await page.getByRole('button', { name, exact: true }).count()).toBe(0);
    expect(await page.getByLabel('Delta').count()).toBe(0);
    await visit.close();
  });

  it('shows a hostile reason as its characters: no element made of it, no script run', async () => {
    const written = await service.api(service.keys.other as string, '/inventory/7/adjustments', {
      method: 'POST',
      body: JSON.stringify({ delta: 1, reason: HOSTILE }),
    });
    expect(written.status).toBe(200);
    const visit = await visitConsole(browser, service.url);
    const { page } = visit;
    await signIn(visit, service.keys.clerk as string);
    await page.getByRole('button', { name: nameOf(7), exact: true }).click();
    const reason = page
      .getByRole('table', { name: /History/ })
      .locator('td.reason')
      .first();
    await expect.poll(() => reason.textContent()).toBe(HOSTILE);
    expect(await page.locator('.pet img').count()).toBe(0);
    expect(visit.dialogs).toEqual([]);
    expect(visit.requests.filter((url) => new URL(url).pathname.endsWith('/x'))).toEqual([]);
    await visit.close();
  });

  it('works from the keyboard alone: sign in, filter, open a pet and set it, with the focus always visible', async () => {
    const visit = await visitConsole(browser, service.url);
    const { page } = visit;
    const focusVisible = () =>
      page.evaluate(
        "document.activeElement.matches(':focus-visible') && getComputedStyle(document.activeElement).outlineStyle !== 'none'",
      );
    await tabTo(page, isFocused(page.getByLabel('API key')));
    expect(await focusVisible()).toBe(true);
    await page.keyboard.type(service.keys.clerk as string);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();

    await tabTo(page, isFocused(page.getByLabel('Status')));
    expect(await focusVisible()).toBe(true);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await tabTo(page, isFocused(page.getByLabel('Low stock at or below')));
    await page.keyboard.type('9');
    await page.keyboard.press('Enter');
    await expect.poll(async () => new Set(await column(page, 4))).toEqual(new Set(['pending']));

    await tabTo(page, isFocused(page.getByLabel('Search')));
    await page.keyboard.type('8');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: `${nameOf(8)} (pet 8)` }).waitFor();
    // The focus moves to the pet opened: its first field is the next Tab.
    await page.keyboard.press('Tab');
    expect(await isFocused(page.getByLabel('Quantity', { exact: true }))()).toBe(true);
    expect(await focusVisible()).toBe(true);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('21');
    await tabTo(page, isFocused(page.getByRole('button', { name: 'Set', exact: true })));
    expect(await focusVisible()).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/Saved: quantity 21/);
    expect(visit.errors).toEqual([]);
    await visit.close();
  });

  it('on a 429 says when it will try again, and sends nothing more until then', async () => {
    const key = service.keys.thrifty as string;
    // Spend the free key's minute through the API first.
    for (let i = 0; i < 60; i += 1) await (await service.api(key, '/inventory?limit=1')).arrayBuffer();
    const visit = await visitConsole(browser, service.url);
    const { page } = visit;
    await signIn(visit, key);
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toMatch(/The API asked us to slow down: trying again in [1-9][0-9]* s, at /);
    const asked = () => visit.requests.filter((url) => new URL(url).pathname.startsWith('/v1/inventory')).length;
    const before = asked();
    await page.waitForTimeout(3_000);
    expect(before).toBe(1);
    expect(asked()).toBe(1);
    await visit.close();
  });

  it('asks nothing of any host but the service', async () => {
    const visit = await visitConsole(browser, service.url);
    await signIn(visit, service.keys.clerk as string);
    const origin = new URL(service.url).origin;
    expect(visit.requests.filter((url) => !url.startsWith(origin) && !url.startsWith('data:'))).toEqual([]);
    await visit.close();
  });
});
