import { type IncomingHttpHeaders, request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_CSP } from '../../src/adapters/http/docs-page.js';
import { chromiumAvailable, launchChromium } from '../../support/chromium.js';
import { type HttpFixture, startHttpFixture } from '../http/support/http-fixture.js';
import { DOCUMENT } from '../http/support/openapi-contract.js';

/** The summary of every operation the served document describes. */
function operationSummaries(): string[] {
  const paths = DOCUMENT.paths as Record<string, Record<string, { summary?: string }>>;
  return Object.values(paths).flatMap((item) =>
    Object.values(item).flatMap((operation) => (operation.summary === undefined ? [] : [operation.summary])),
  );
}

/** What one visit of the page did: its console errors and every URL it asked for. */
interface Visit {
  readonly page: Page;
  readonly errors: string[];
  readonly requests: string[];
}

describe('GET /docs, its headers', () => {
  let fixture: HttpFixture;
  beforeAll(async () => {
    fixture = await startHttpFixture();
  });
  afterAll(() => fixture.close());

  it('answers an HTML page with no inline script, under a Content-Security-Policy that allows only this origin', async () => {
    const response = await fetch(`${fixture.origin}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(DOCS_CSP);
    expect(DOCS_CSP).toMatch(/default-src 'none'/);
    expect(DOCS_CSP).toMatch(/script-src 'self'(;|$)/);
    expect(DOCS_CSP).not.toMatch(/https?:|\*/);
    const html = await response.text();
    expect(html.match(/<script[^>]*>/g)).toEqual(['<script src="docs/scalar.js">', '<script src="docs/init.js">']);
  });

  it('serves the renderer’s bundle and its settings from the service itself, without a key', async () => {
    for (const path of ['/docs/scalar.js', '/docs/init.js']) {
      const response = await fetch(`${fixture.origin}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect((await response.text()).length).toBeGreaterThan(100);
    }
  });
});

describe('the docs assets, served from memory', () => {
  let fixture: HttpFixture;
  beforeAll(async () => {
    fixture = await startHttpFixture();
  });
  afterAll(() => fixture.close());

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${fixture.origin}${path}`, { headers: { 'accept-encoding': 'identity', ...headers } });

  it('carry a strong entity tag and answer 304 with no body when If-None-Match names it', async () => {
    for (const path of ['/docs', '/docs/init.js', '/docs/scalar.js']) {
      const first = await get(path);
      const etag = first.headers.get('etag');
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      await first.arrayBuffer();
      const again = await get(path, { 'if-none-match': `"nope", ${etag}` });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
      expect(again.headers.get('etag')).toBe(etag);
      expect((await get(path, { 'if-none-match': '"nope"' })).status).toBe(200);
    }
  });

  it('send the renderer compressed, brotli first, with a tag of each coding of its own', async () => {
    const plain = await get('/docs/scalar.js');
    const plainBytes = Buffer.from(await plain.arrayBuffer());
    // fetch decodes what it asked for; node:http below would not, so the raw bytes are checked there.
    const gzip = await rawGet('/docs/scalar.js', 'gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers.vary).toBe('Accept-Encoding');
    expect(gzip.body.length).toBeLessThan(plainBytes.length / 2);
    expect(gunzipSync(gzip.body).equals(plainBytes)).toBe(true);
    const brotli = await rawGet('/docs/scalar.js', 'gzip, deflate, br');
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(new Set([plain.headers.get('etag'), gzip.headers.etag, brotli.headers.etag]).size).toBe(3);
    expect((await rawGet('/docs/scalar.js', 'br;q=0, gzip')).headers['content-encoding']).toBe('gzip');
  });

  it('are limited per client address like every request without a key: the 61st in a minute gets 429', async () => {
    // A fixture of its own: the tests above spent some of this address's minute.
    await fixture.close();
    fixture = await startHttpFixture();
    const statuses: number[] = [];
    for (let i = 0; i < 61; i += 1) {
      const response = await get(i % 2 === 0 ? '/docs/init.js' : '/docs', { 'if-none-match': '*' });
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses.slice(0, 60).every((status) => status === 304)).toBe(true);
    const refused = await get('/docs/scalar.js');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    expect(await refused.json()).toMatchObject({ code: 'rate_limited', status: 429 });
  });

  /** One GET through node:http, which hands over the body as sent. */
  function rawGet(path: string, acceptEncoding: string) {
    return new Promise<{ headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      request(`${fixture.origin}${path}`, { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      })
        .on('error', reject)
        .end();
    });
  }
});

describe.skipIf(!chromiumAvailable())('GET /docs in a real browser', () => {
  let fixture: HttpFixture;
  let browser: Browser;
  let visit: Visit;
  beforeAll(async () => {
    fixture = await startHttpFixture();
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(`${fixture.origin}/docs`, { waitUntil: 'networkidle' });
    visit = { page, errors, requests };
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await fixture?.close();
  });

  it('shows the summary of every operation in the document', async () => {
    const summaries = operationSummaries();
    expect(summaries.length).toBeGreaterThanOrEqual(5);
    for (const summary of summaries) {
      await visit.page.getByText(summary, { exact: true }).first().waitFor({ state: 'visible', timeout: 15_000 });
    }
  });

  it('logs no console error', () => {
    expect(visit.errors).toEqual([]);
  });

  it('requests nothing outside 127.0.0.1: the bundle, the settings and the document, from this service', () => {
    const elsewhere = visit.requests.filter((url) => {
      const { protocol, hostname } = new URL(url);
      return !(protocol === 'data:' || protocol === 'blob:' || hostname === '127.0.0.1');
    });
    expect(elsewhere).toEqual([]);
    const paths = visit.requests.map((url) => new URL(url).pathname);
    expect(paths).toEqual(expect.arrayContaining(['/docs', '/docs/scalar.js', '/docs/init.js', '/v1/openapi.json']));
  });
});
