/**
 * What the package costs an embedder (issue 29), each build measured in fresh processes, alternated:
 * - `import('petstore-inventory')` (dist/index.js): wall time and RSS until the import resolves, beside a
 *   process that imports nothing (the baseline: Node's own start);
 * - Authenticate with the server's key hasher (NodeKeyCrypto, synchronous), the step of every GET and
 *   PATCH with a key, and the same with WebCryptoKeyCrypto (asynchronous), the core's hasher outside Node;
 * - the tarball: packed and unpacked bytes, and its files (`npm pack --dry-run`, as built).
 * With `--against=<dist folder>` the earlier build (its checkout built, with node_modules) joins each
 * measure as the baseline, e.g. `git clone . /tmp/lib-base && git -C /tmp/lib-base checkout 59fbdcd`,
 * `ln -s "$PWD/node_modules" /tmp/lib-base/node_modules`, `npx tsc -p /tmp/lib-base/tsconfig.build.json`,
 * then `npm run bench -- --only=library --against=/tmp/lib-base/dist`.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { count, median, ratio, table } from './stats.js';

const ROOT = join(import.meta.dirname, '..');

export interface LibrarySettings {
  /** Fresh processes a build, for each measure. */
  readonly runs: number;
  /** Authenticate calls timed in each process, after a quarter as many of warm-up. */
  readonly calls: number;
}

interface ImportRun {
  readonly ms: number;
  readonly rssBefore: number;
  readonly rssAfter: number;
}

interface Pack {
  readonly size: number;
  readonly unpackedSize: number;
  readonly entryCount: number;
}

/** One build's figures: its dist folder, its imports, its NodeKeyCrypto authentications (ns a call), its tarball. */
interface BuildFigures {
  readonly dist: string;
  readonly imports: ImportRun[];
  readonly nodeHashNs: number[];
  readonly pack: Pack;
}

export interface LibraryResult {
  /** Processes that import nothing: the baseline of the import. */
  readonly bare: ImportRun[];
  readonly now: BuildFigures;
  /** WebCryptoKeyCrypto, this build only. */
  readonly webHashNs: number[];
  /** The build given by `--against`, if any. */
  readonly earlier?: BuildFigures;
}

/** A fresh node process evaluating `code` (ESM); its stdout, parsed as JSON. */
const measure = <T>(code: string): T =>
  JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' })) as T;

const importOnce = (dist: string | undefined): ImportRun =>
  measure(`const rssBefore = process.memoryUsage().rss;
    const t0 = performance.now();
    ${dist === undefined ? '' : `await import(${JSON.stringify(pathToFileURL(join(dist, 'index.js')).href)});`}
    const ms = performance.now() - t0;
    console.log(JSON.stringify({ ms, rssBefore, rssAfter: process.memoryUsage().rss }));`);

/** ns a call of Authenticate.execute of a valid key over the memory key store, with `hasher`. */
function authenticateOnce(dist: string, hasher: 'NodeKeyCrypto' | 'WebCryptoKeyCrypto', calls: number): number {
  const url = (path: string) => JSON.stringify(pathToFileURL(join(dist, path)).href);
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
    await round(${Math.ceil(calls / 4)});
    const t0 = process.hrtime.bigint();
    await round(${calls});
    console.log(JSON.stringify({ ns: Number(process.hrtime.bigint() - t0) / ${calls} }));`).ns;
}

const packOf = (dist: string): Pack =>
  (
    JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: dirname(dist),
        encoding: 'utf8',
      }),
    ) as [Pack]
  )[0];

/** Each measure in rounds, the builds taking turns within a round (the machine is noisy). */
export function runLibrarySuite(
  settings: LibrarySettings,
  against: string | undefined,
  progress: (line: string) => void,
): LibraryResult {
  const dists = [join(ROOT, 'dist'), ...(against === undefined ? [] : [against])];
  const imports = dists.map(() => [] as ImportRun[]);
  const nodeHash = dists.map(() => [] as number[]);
  const bare: ImportRun[] = [];
  const webHashNs: number[] = [];
  for (let round = 1; round <= settings.runs; round += 1) {
    bare.push(importOnce(undefined));
    for (const [i, dist] of dists.entries()) imports[i]?.push(importOnce(dist));
    for (const [i, dist] of dists.entries()) nodeHash[i]?.push(authenticateOnce(dist, 'NodeKeyCrypto', settings.calls));
    webHashNs.push(authenticateOnce(dists[0] as string, 'WebCryptoKeyCrypto', settings.calls));
    progress(`  round ${round}: import ${dists.map((_, i) => imports[i]?.at(-1)?.ms.toFixed(0)).join(' / ')} ms`);
  }
  const figures = (i: number): BuildFigures => ({
    dist: dists[i] as string,
    imports: imports[i] ?? [],
    nodeHashNs: nodeHash[i] ?? [],
    pack: packOf(dists[i] as string),
  });
  return { bare, now: figures(0), webHashNs, ...(against === undefined ? {} : { earlier: figures(1) }) };
}

const mibOf = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** The package's section of bench/README.md. */
export function librarySection(result: LibraryResult, settings: LibrarySettings): string {
  const { now, earlier } = result;
  const added = (r: ImportRun) => r.rssAfter - r.rssBefore;
  const importRow = (name: string, runs: readonly ImportRun[]) => [
    name,
    `${median(runs.map((r) => r.ms)).toFixed(1)} ms`,
    mibOf(median(runs.map(added))),
    mibOf(median(runs.map((r) => r.rssAfter))),
  ];
  const over = (f: (r: ImportRun) => number, base: readonly ImportRun[]) =>
    ratio(median(now.imports.map(f)) / median(base.map(f)));
  const ns = (values: readonly number[]) => `${count(median(values))} ns`;
  const hashBase = median((earlier ?? now).nodeHashNs);
  const packRow = (name: string, p: Pack) => [
    name,
    `${(p.size / 1e3).toFixed(0)} kB`,
    `${(p.unpackedSize / 1e6).toFixed(2)} MB`,
    count(p.entryCount),
  ];
  return [
    "## The package: import('petstore-inventory'), the key hash, the tarball",
    '',
    '```sh',
    'npm run bench -- --only=library                          # this section alone, printed',
    'npm run bench -- --only=library --against=<earlier dist>  # with an earlier build as the baseline',
    'npm run bench -- --quick --only=library                  # 3 processes a build, 20,000 calls',
    '```',
    '',
    `${settings.runs} fresh processes a build and measure, the builds alternated; medians.` +
      (earlier === undefined ? ' No earlier build given (`--against`).' : ` Earlier build: \`${earlier.dist}\`.`),
    '',
    table(
      ['import', 'import time', 'RSS added by the import', 'RSS after'],
      [
        importRow('baseline: a process that imports nothing', result.bare),
        ...(earlier === undefined ? [] : [importRow('earlier build', earlier.imports)]),
        importRow('this build', now.imports),
        ...(earlier === undefined
          ? []
          : [
              [
                'this / earlier',
                over((r) => r.ms, earlier.imports),
                over(added, earlier.imports),
                over((r) => r.rssAfter, earlier.imports),
              ],
            ]),
      ],
    ),
    '',
    `Authenticate.execute of a valid key over the memory key store, ${count(settings.calls)} calls a process:`,
    '',
    table(
      ['build, hasher', 'a call', `/ ${earlier === undefined ? 'this build' : 'earlier'}, NodeKeyCrypto`],
      [
        ...(earlier === undefined ? [] : [['earlier, NodeKeyCrypto', ns(earlier.nodeHashNs), '1.00']]),
        ['this build, NodeKeyCrypto (the server)', ns(now.nodeHashNs), ratio(median(now.nodeHashNs) / hashBase)],
        [
          'this build, WebCryptoKeyCrypto (the core outside Node)',
          ns(result.webHashNs),
          ratio(median(result.webHashNs) / hashBase),
        ],
      ],
    ),
    '',
    'The tarball (`npm pack --dry-run`, as built):',
    '',
    table(
      ['build', 'packed', 'unpacked', 'files'],
      [...(earlier === undefined ? [] : [packRow('earlier', earlier.pack)]), packRow('this build', now.pack)],
    ),
  ].join('\n');
}
