import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv } from '../../support/service-process.js';
import { installLine, npm, packTarball, projectWith, root, startPackedService } from '../support/packed-package.js';

/** The README's limits for its serving line. */
const MAX_PACKAGES = 160;
const MAX_MEGABYTES = 70;

/** The packages of the README's one install line for serving on SQLite. */
function readmeServingLine(): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const line = /^npm install petstore-inventory better-sqlite3 [^\n]+$/m.exec(readme)?.[0];
  if (line === undefined) throw new Error('README.md has no "npm install petstore-inventory better-sqlite3 ..." line');
  return installLine(line);
}

/** The bytes of every file under `dir`, as written (not the blocks they take). */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** Answers a GET without keep-alive: status, content type and body. */
async function get(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers: { connection: 'close', ...headers } });
  return { status: response.status, type: response.headers.get('content-type') ?? '', body: await response.text() };
}

/** The `src` of every script and the `href` of every style sheet a page names, relative to `base`. */
const assetsOf = (html: string, base: string): string[] =>
  [...html.matchAll(/<script[^>]* src="([^"]+)"|<link[^>]* rel="stylesheet"[^>]* href="([^"]+)"/g)].map(
    (match) => new URL((match[1] ?? match[2]) as string, base).href,
  );

let work: string;
let project: string;
let packages: string[];

// One install for the file: better-sqlite3 compiles from source when no prebuilt binary can be fetched,
// about a minute on an idle machine, over ten on one busy with other builds.
beforeAll(async () => {
  const packed = await packTarball();
  work = packed.dir;
  const line = readmeServingLine().map((name) => (name === 'petstore-inventory' ? packed.tarball : name));
  project = await projectWith(line[0] as string, join(work, 'app'));
  await npm(project, ['install', '--no-audit', '--no-fund', ...line.slice(1)]);
  const { stdout } = await npm(project, ['ls', '--all', '--parseable']);
  packages = [...new Set(stdout.trim().split('\n').slice(1))];
}, 1_200_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the README’s install line for serving on SQLite, from the packed tarball and the npm registry', () => {
  it(`installs at most ${MAX_PACKAGES} packages and ${MAX_MEGABYTES} MB, and no AI SDK`, () => {
    const megabytes = bytesUnder(join(project, 'node_modules')) / 1e6;
    process.stdout.write(`serving install: ${packages.length} packages, ${megabytes.toFixed(1)} MB\n`);
    expect(packages.length).toBeGreaterThan(10);
    expect(packages.length).toBeLessThanOrEqual(MAX_PACKAGES);
    expect(megabytes).toBeLessThanOrEqual(MAX_MEGABYTES);
    const names = packages.map((path) => path.split('node_modules/').at(-1));
    expect(
      names.filter((name) => name === 'ai' || name?.startsWith('@ai-sdk/') || name?.startsWith('@scalar/')),
    ).toEqual([]);
  });

  it('serves /v1/inventory with the key petstore serve prints, /docs with every file it names, and /console', async () => {
    // Development seeds the empty store and prints a key with the URL to try it on.
    const service = await startPackedService(
      project,
      childEnv({ HOST: '127.0.0.1', PORT: '0', PETSTORE_DB: join(work, 'petstore.db') }),
      /Bearer (psk_\S+)" (http:\/\/\S+)\/v1\/inventory/,
    );
    const { child } = service;
    const [, key, url] = service.match;
    try {
      const inventory = await get(`${url}/v1/inventory`, { authorization: `Bearer ${key}` });
      expect(inventory.status).toBe(200);
      expect(JSON.parse(inventory.body)).toEqual(expect.arrayContaining([expect.objectContaining({ petId: 1 })]));

      for (const page of ['/docs', '/console']) {
        const answer = await get(`${url}${page}`);
        expect(answer.status, page).toBe(200);
        expect(answer.type, page).toMatch(/^text\/html/);
        const assets = assetsOf(answer.body, `${url}/`);
        expect(assets.length, page).toBeGreaterThan(0);
        for (const asset of assets) {
          const file = await get(asset);
          expect(file.status, asset).toBe(200);
          expect(file.type, asset).toMatch(/^text\/(javascript|css)/);
          expect(file.body.length, asset).toBeGreaterThan(100);
        }
      }
    } finally {
      if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid as number), 'SIGTERM');
    }
  }, 60_000);
});
