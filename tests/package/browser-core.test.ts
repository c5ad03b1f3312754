import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from '../../support/chromium.js';
import { readmeOutput, writeReadmeExample } from '../support/readme-example.js';

const root = join(import.meta.dirname, '..', '..');

/** Set by the bundle once the example's last line has run, so that the page can be waited for. */
const DONE = '__embeddingExampleDone';

describe.skipIf(!chromiumAvailable())('the core in a browser', () => {
  let dir: string;
  let bundle: string;
  let server: Server;
  let browser: Browser;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'petstore-browser-'));
    // The README's example as it is, importing petstore-inventory: the core's entry, from the sources.
    const example = writeReadmeExample('Embedding', join(dir, 'example.ts'), {});
    writeFileSync(
      example,
      `${readFileSync(example, 'utf8')}
globalThis.${DONE} = true;
`,
    );
    const result = await build({
      entryPoints: [example],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      write: false,
      alias: { 'petstore-inventory': join(root, 'src', 'index.ts') },
      logLevel: 'silent',
    });
    bundle = result.outputFiles[0]?.text ?? '';
    writeFileSync(join(dir, 'bundle.mjs'), bundle);
    // From http://127.0.0.1, a secure context: Web Crypto's subtle API exists only in one.
    server = createServer((req, res) => {
      if (req.url === '/bundle.mjs') {
        res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
      } else {
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<!doctype html><script type="module" src="/bundle.mjs"></script>');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('bundles for the browser with no Node module in it', () => {
    // esbuild with platform "browser" fails on a node: import; none reached it.
    expect(bundle).not.toMatch(/from ["']node:|require\(["']node:/);
    expect(bundle).toContain('createInventoryCore');
  });

  it('runs the README’s embedding example in Chromium, printing what it prints in Node', async () => {
    const page = await browser.newPage();
    const lines: string[] = [];
    const errors: string[] = [];
    page.on('console', (message) => lines.push(message.text()));
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await page.waitForFunction(`globalThis.${DONE} === true`, undefined, { timeout: 20_000 });
    expect(errors).toEqual([]);

    // The same bundle, in Node.
    const { stdout } = await promisify(execFile)(process.execPath, [join(dir, 'bundle.mjs')]);
    const inNode = stdout.trim().split('\n');
    expect(lines).toEqual(inNode);
    expect(lines).toEqual(readmeOutput('Embedding'));
  });
});
