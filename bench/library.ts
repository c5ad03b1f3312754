/**
 * What the package costs an embedder, against an earlier build measured in the same run:
 * - `import('petstore-inventory')`: wall time and RSS of a fresh process until the import resolves;
 * - Authenticate with the server's key hasher (NodeKeyCrypto, synchronous), the step of every GET and
 *   PATCH with a key that the port's change (a hash may be a promise) touches; and the same with
 *   WebCryptoKeyCrypto (asynchronous), the core's hasher outside Node;
 * - the tarball: packed and unpacked bytes, and its files.
 * Each measure alternates the two builds, one fresh process a run, and reports the median.
 * Usage: node --import tsx bench/library.ts <earlier checkout, built, with node_modules> [runs] [import,hash,pack]
 *   e.g. git clone /work/main /tmp/lib-base && git -C /tmp/lib-base checkout 59fbdcd,
 *   ln -s "$PWD/node_modules" /tmp/lib-base/node_modules, npx tsc -p /tmp/lib-base/tsconfig.build.json
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { count, median, ratio, table } from './stats.js';

const ROOT = join(import.meta.dirname, '..');
const [base, runsArg, sectionsArg] = process.argv.slice(2);
if (base === undefined) {
  process.stderr.write('usage: node --import tsx bench/library.ts <earlier checkout, built> [runs]\n');
  process.exit(2);
}
const RUNS = Number(runsArg ?? 15);
const builds = { earlier: base, now: ROOT } as const;
const sections = new Set((sectionsArg ?? 'import,hash,pack').split(','));

/** A fresh node process evaluating `code` (ESM); its stdout, parsed as JSON. */
const measure = <T>(code: string): T =>
  JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' })) as T;

interface ImportRun {
  readonly ms: number;
  readonly rssBefore: number;
  readonly rssAfter: number;
}

const importOnce = (dir: string): ImportRun =>
  measure(`const rssBefore = process.memoryUsage().rss;
    const t0 = performance.now();
    await import(${JSON.stringify(pathToFileURL(join(dir, 'dist', 'index.js')).href)});
    const ms = performance.now() - t0;
    console.log(JSON.stringify({ ms, rssBefore, rssAfter: process.memoryUsage().rss }));`);

/** ns per Authenticate.execute of a valid key over the memory key store, with `hasher`. */
const authenticateOnce = (dir: string, hasher: 'NodeKeyCrypto' | 'WebCryptoKeyCrypto'): number => {
  const url = (path: string) => JSON.stringify(pathToFileURL(join(dir, 'dist', path)).href);
  const hasherModule =
    hasher === 'NodeKeyCrypto' ? 'adapters/system/node-key-crypto.js' : 'adapters/web/web-key-crypto.js';
  return measure<{ ns: number }>(`
    const { Authenticate } = await import(${url('application/use-cases/authenticate.js')});
    const { IssueApiKey } = await import(${url('application/use-cases/issue-api-key.js')});
    const { createMemoryStorage } = await import(${url('adapters/memory/memory-adapters.js')});
    const { ${hasher} } = await import(${url(hasherModule)});
    const clock = { nowMs: () => Date.now() };
    const { keys } = createMemoryStorage(clock);
    const crypto = new ${hasher}();
    const { key } = await new IssueApiKey(keys, crypto, crypto, clock).execute({ plan: 'free' });
    const authenticate = new Authenticate(keys, crypto, clock);
    const round = async (n) => { for (let i = 0; i < n; i++) if (!(await authenticate.execute({ apiKey: key })).ok) throw new Error('refused'); };
    await round(50_000);
    const n = 200_000;
    const t0 = process.hrtime.bigint();
    await round(n);
    console.log(JSON.stringify({ ns: Number(process.hrtime.bigint() - t0) / n }));`).ns;
};

/** Alternates the builds `RUNS` times each; the runs of each, in order. */
function alternate<T>(once: (dir: string) => T, which: readonly (keyof typeof builds)[] = ['earlier', 'now']) {
  const out: Record<string, T[]> = {};
  for (let i = 0; i < RUNS; i++) {
    for (const name of which) {
      out[name] = [...(out[name] ?? []), once(builds[name])];
    }
  }
  return out as Record<keyof typeof builds, T[]>;
}

if (sections.has('import')) importSection();
if (sections.has('hash')) hashSection();
if (sections.has('pack')) packSection();

function importSection(): void {
  const imports = alternate(importOnce);
  const row = (name: keyof typeof builds) => {
    const runs = imports[name];
    return [
      name,
      `${median(runs.map((r) => r.ms)).toFixed(1)} ms`,
      `${(median(runs.map((r) => r.rssAfter - r.rssBefore)) / 2 ** 20).toFixed(1)} MiB`,
      `${(median(runs.map((r) => r.rssAfter)) / 2 ** 20).toFixed(1)} MiB`,
    ];
  };
  const ratioOf = (f: (r: ImportRun) => number) => ratio(median(imports.now.map(f)) / median(imports.earlier.map(f)));
  process.stdout.write(
    `import('petstore-inventory'), ${RUNS} fresh processes each, alternated; medians:\n\n${table(
      ['build', 'import time', 'RSS added by the import', 'RSS after'],
      [
        row('earlier'),
        row('now'),
        ['now / earlier', ratioOf((r) => r.ms), ratioOf((r) => r.rssAfter - r.rssBefore), ratioOf((r) => r.rssAfter)],
      ],
    )}\n\n`,
  );
}

function hashSection(): void {
  const nodeHash = alternate((dir) => authenticateOnce(dir, 'NodeKeyCrypto'));
  const webHash = alternate((dir) => authenticateOnce(dir, 'WebCryptoKeyCrypto'), ['now']);
  const ns = (values: readonly number[]) => `${count(median(values))} ns`;
  process.stdout.write(
    `Authenticate.execute of a valid key (memory key store), 200,000 calls a process, ${RUNS} processes each; medians:\n\n${table(
      ['build, hasher', 'a call', 'now / earlier'],
      [
        ['earlier, NodeKeyCrypto', ns(nodeHash.earlier), ''],
        ['now, NodeKeyCrypto (the server)', ns(nodeHash.now), ratio(median(nodeHash.now) / median(nodeHash.earlier))],
        [
          'now, WebCryptoKeyCrypto (the core elsewhere)',
          ns(webHash.now),
          ratio(median(webHash.now) / median(nodeHash.earlier)),
        ],
      ],
    )}\n\n`,
  );
}

function packSection(): void {
  const packed = (dir: string) =>
    (
      JSON.parse(
        execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir, encoding: 'utf8' }),
      ) as [{ size: number; unpackedSize: number; entryCount: number }]
    )[0];
  const tarRow = (name: keyof typeof builds) => {
    const p = packed(builds[name]);
    return [name, `${(p.size / 1e3).toFixed(0)} kB`, `${(p.unpackedSize / 1e6).toFixed(2)} MB`, count(p.entryCount)];
  };
  process.stdout.write(
    `npm pack (the files it would pack, as built):\n\n${table(['build', 'packed', 'unpacked', 'files'], [tarRow('earlier'), tarRow('now')])}\n`,
  );
}
