import { execFile } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { transformSync } from 'esbuild';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_PEERS } from '../../src/composition/service-peers.js';
import { SETTINGS } from '../../src/composition/settings.js';
import { childEnv } from '../../support/service-process.js';
import {
  installLine,
  linkPackages,
  npm,
  packTarball,
  projectWith,
  root,
  startPackedService,
} from '../support/packed-package.js';
import { readmeExamples, readmeOutput, writeReadmeExample } from '../support/readme-example.js';

const run = promisify(execFile);

/** Every subpath whose packages are optional peers, and the packages its error must name. */
const PEERS: Readonly<Record<string, readonly string[]>> = {
  sqlite: ['better-sqlite3'],
  postgres: ['pg'],
  redis: ['ioredis'],
  koa: ['koa', '@koa/router', 'koa-bodyparser', 'valibot', 'lossless-json', 'pino'],
  client: ['lossless-json'],
  server: SERVICE_PEERS,
};

/**
 * Loaded with --import before the program: records the URL of every module the process loads (ESM, and
 * builtins, through a load hook) and, at exit, every CommonJS module in require's cache.
 */
const RECORDER = `
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`
  import { appendFileSync } from 'node:fs';
  export async function load(url, context, next) {
    appendFileSync(process.env.LOADED_LOG, url + '\\\\n');
    return next(url, context);
  }\`));
const require = createRequire(import.meta.url);
process.on('exit', () => {
  for (const file of Object.keys(require.cache)) appendFileSync(process.env.LOADED_LOG, 'cjs:' + file + '\\n');
});
`;

let work: string;
let tarball: string;

// One pack for the whole file: it builds dist again (prepack), the longest step.
beforeAll(async () => {
  ({ dir: work, tarball } = await packTarball());
}, 180_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed package, installed alone in a new project', () => {
  let project: string;

  beforeAll(async () => {
    project = await projectWith(tarball, join(work, 'app'));
  }, 120_000);

  it('holds dist, README, LICENSE and package.json only', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const tops = new Set(
      stdout
        .trim()
        .split('\n')
        .map((path) => path.replace(/^package\//, '').split('/')[0]),
    );
    expect([...tops].sort()).toEqual(['LICENSE', 'README.md', 'dist', 'package.json']);
  });

  it('installs no other package: npm ls --all shows the package alone, every optional peer unmet', async () => {
    expect(readdirSync(join(project, 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual([
      'petstore-inventory',
    ]);
    // npm ls exits 1 on unmet peers only when they are not optional: these all are.
    const { stdout } = await npm(project, ['ls', '--all', '--json']);
    const tree = JSON.parse(stdout) as {
      dependencies: Record<string, { version: string; dependencies?: Record<string, { version?: string }> }>;
    };
    expect(Object.keys(tree.dependencies)).toEqual(['petstore-inventory']);
    // An optional peer not installed is listed without a version ("UNMET OPTIONAL DEPENDENCY").
    const below = Object.entries(tree.dependencies['petstore-inventory']?.dependencies ?? {});
    expect(below.length).toBeGreaterThan(0);
    expect(below.filter(([, dep]) => dep.version !== undefined)).toEqual([]);
    expect(tree.dependencies['petstore-inventory']?.version).toBe('1.2.0');
  });

  it('runs the README’s embedding example from import, loading no module outside the package', async () => {
    // The README's example is TypeScript; its types are stripped, nothing else is changed.
    const source = writeReadmeExample('Embedding', join(work, 'example.ts'), {});
    const example = join(project, 'example.mjs');
    writeFileSync(example, transformSync(readFileSync(source, 'utf8'), { loader: 'ts', format: 'esm' }).code);
    writeFileSync(join(project, 'recorder.mjs'), RECORDER);
    const log = join(work, 'loaded.log');
    const { stdout } = await run(process.execPath, ['--import', './recorder.mjs', 'example.mjs'], {
      cwd: project,
      env: { ...process.env, LOADED_LOG: log },
    });
    expect(stdout.trim().split('\n')).toEqual(readmeOutput('Embedding'));

    const loaded = readFileSync(log, 'utf8').trim().split('\n');
    const own = `${pathToFileURL(join(project, 'node_modules', 'petstore-inventory', 'dist'))}/`;
    const outside = loaded.filter((url) => url !== pathToFileURL(example).href && !url.startsWith(own));
    expect(outside).toEqual([]);
    // Not vacuous: the recorder saw the example and the core's modules.
    expect(loaded).toContain(pathToFileURL(example).href);
    expect(loaded.filter((url) => url.startsWith(own)).length).toBeGreaterThan(50);
  });

  it('compiles every README example of the core strict against the installed types, and runs it from the tarball', async () => {
    const examples = readmeExamples('The core: `petstore-inventory`');
    expect(examples.length).toBeGreaterThan(5);
    const files = examples.map((example, i) => {
      const file = join(project, `core-example-${i}.ts`);
      writeFileSync(file, example.code);
      return file;
    });
    // As a user's project compiles them: strict, Node's ESM resolution, the package's own .d.ts files.
    const program = ts.createProgram(files, {
      strict: true,
      noEmit: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
    });
    const errors = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(errors).toEqual([]);
    for (const [i, example] of examples.entries()) {
      const script = join(project, `core-example-${i}.mjs`);
      writeFileSync(script, transformSync(example.code, { loader: 'ts', format: 'esm' }).code);
      const { stdout } = await run(process.execPath, [script], { cwd: project });
      expect(stdout.trimEnd().split('\n'), example.title).toEqual(example.output);
    }
  }, 180_000);

  it('refuses each subpath without its packages, naming them and the npm install line', async () => {
    const script = `for (const name of ${JSON.stringify(Object.keys(PEERS))}) {
      await import('petstore-inventory/' + name).then(
        () => console.log(name + '\\tloaded'),
        (e) => console.log(name + '\\t' + e.name + '\\t' + e.message),
      );
    }`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project });
    const answers = new Map(
      stdout
        .trim()
        .split('\n')
        .map((line) => {
          const [subpath = '', ...rest] = line.split('\t');
          return [subpath, rest] as const;
        }),
    );
    for (const [subpath, peers] of Object.entries(PEERS)) {
      const [name, message = ''] = answers.get(subpath) ?? [];
      expect(name, subpath).toBe('MissingPeerError');
      expect(message, subpath).toMatch(new RegExp(`^petstore-inventory/${subpath} needs `));
      expect(installLine(message), subpath).toEqual(expect.arrayContaining([...peers]));
    }
  });

  it('answers petstore --help, keys create --help and serve --help without any peer, starting nothing', async () => {
    // A port held here: a serve that tried to listen on it would fail (EADDRINUSE) instead of exiting 0.
    const held = createServer();
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    const port = (held.address() as AddressInfo).port;
    const files = () => readdirSync(project, { recursive: true }).map(String).sort();
    const before = files();
    const env = childEnv({ HOST: '127.0.0.1', PORT: String(port), PETSTORE_DB: join(project, 'data', 'help.db') });
    const help = async (...args: string[]) =>
      (await run('npx', ['--no', '--', 'petstore', ...args], { cwd: project, env, timeout: 20_000 })).stdout;
    try {
      const top = await help('--help');
      expect(top).toMatch(/^Usage: petstore <command>/);
      expect(top).toMatch(/^ {2}serve {2,}starts the HTTP service/m);
      expect(top).toMatch(/^ {2}keys create /m);
      expect(await help('keys', 'create', '--help')).toMatch(/^Usage: petstore keys create/);
      const serve = await help('serve', '--help');
      expect(serve).toMatch(/^Usage: petstore serve/);
      for (const [name, { default: value }] of Object.entries(SETTINGS)) {
        expect(serve, name).toMatch(
          new RegExp(`^ {2}${name} +${(value ?? '(unset)').replace(/[().]/g, '\\$&')}$`, 'm'),
        );
      }
      expect(Object.keys(SETTINGS)).toEqual(
        expect.arrayContaining(['PORT', 'HOST', 'PETSTORE_DB', 'DATABASE_URL', 'REDIS_URL']),
      );
    } finally {
      held.close();
    }
    expect(files()).toEqual(before);
  }, 120_000);

  it('serves with npx petstore serve once the packages its error names are there', async () => {
    const refused = await run('npx', ['--no', 'petstore', 'serve'], { cwd: project }).then(
      () => {
        throw new Error('petstore serve started without its packages');
      },
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused.code).toBe(1);
    // Every package a start on SQLite needs, in one line: the server's own and the store's driver, no more.
    expect(refused.stderr).toMatch(/^error: petstore needs /);
    const line = installLine(refused.stderr);
    expect([...line].sort()).toEqual([...SERVICE_PEERS, 'better-sqlite3'].sort());
    linkPackages(project, line);

    const service = await startPackedService(
      project,
      childEnv({ HOST: '127.0.0.1', PORT: '0', PETSTORE_DB: join(work, 'petstore.db') }),
      /"url":"(http:\/\/[^"]+)\/v1".*"msg":"listening"/,
    );
    const { child } = service;
    const url = service.match[1] as string;
    try {
      // Without keep-alive, so that the stop below has no idle connection to wait for.
      const read = (path: string) =>
        new Promise<{ status?: number; body: string }>((resolve, reject) => {
          get(`${url}${path}`, { agent: false }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (text: string) => {
              body += text;
            });
            res.on('end', () => resolve({ status: res.statusCode, body }));
          }).on('error', reject);
        });
      expect(await read('/livez')).toEqual({ status: 200, body: '{"status":"live"}' });
      // The pages' files, found where the package's "imports" names them inside the installed package.
      for (const path of ['/console/console.js', '/console/console.css', '/docs/scalar.js']) {
        const file = await read(path);
        expect(file.status, path).toBe(200);
        expect(file.body.length, path).toBeGreaterThan(100);
      }
      const stopped = new Promise<void>((resolve) =>
        child.stdout.on('data', () => service.output().includes('"msg":"stopped"') && resolve()),
      );
      const exited = new Promise<string>((resolve) =>
        child.once('exit', (code, signal) => resolve(`${code} ${signal}`)),
      );
      process.kill(-(child.pid as number), 'SIGTERM');
      // The service drained and closed its stores: it logs so only at the end of a clean stop. npx
      // itself ends by the signal.
      await Promise.race([
        stopped,
        new Promise((_, reject) =>
          setTimeout(() => reject(new Error(`no clean stop within 20 s:\n${service.output()}`)), 20_000),
        ),
      ]);
      expect(['0 null', 'null SIGTERM']).toContain(await exited);
    } finally {
      if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid as number), 'SIGKILL');
    }

    // Tracing asked for without OpenTelemetry installed: the start stops, naming the line that adds it,
    // whether petstore loads tracing itself or node --import does, as npm start has it.
    const traced = childEnv({ PORT: '0', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' });
    const tracing = join(project, 'node_modules', 'petstore-inventory', 'dist', 'tracing.js');
    for (const args of [
      ['npx', ['--no', '--', 'petstore', 'serve']],
      [process.execPath, ['--import', tracing, '-e', '']],
    ] as const) {
      const failed = await run(args[0], [...args[1]], { cwd: project, env: traced }).then(
        () => {
          throw new Error(`${args.join(' ')} started without OpenTelemetry`);
        },
        (error: { code: number; stderr: string }) => error,
      );
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(/^error: .*needs @opentelemetry\/api, /);
      expect(installLine(failed.stderr)).toContain('@opentelemetry/sdk-node');
    }
  }, 120_000);
});

/** Every folder of examples/ with a package.json: each is run the same way, by its `npm test`. */
const EXAMPLES = join(root, 'examples');
const examples = existsSync(EXAMPLES)
  ? readdirSync(EXAMPLES).filter((name) => existsSync(join(EXAMPLES, name, 'package.json')))
  : [];

describe('the examples, each over the packed package', () => {
  it('include the Hono service over SQLite', () => {
    expect(examples).toContain('hono-sqlite');
  });

  it.each(examples)(
    '%s passes its own tests (npm test)',
    async (name) => {
      const dir = join(work, 'examples', name);
      cpSync(join(EXAMPLES, name), dir, { recursive: true, filter: (path) => !path.includes('node_modules') });
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
        devDependencies?: Record<string, string>;
      };
      const others = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }).filter(
        (dep) => dep !== 'petstore-inventory',
      );
      const absent = others.filter((dep) => !existsSync(join(root, 'node_modules', dep)));
      expect(absent, 'packages an example uses must be devDependencies of the checkout').toEqual([]);
      // The tarball is installed as npm would install it from the registry; the rest (drivers, the
      // framework) is linked from the checkout: no registry, no native build.
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({ ...manifest, dependencies: {}, devDependencies: {} }, undefined, 2),
      );
      await npm(dir, ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball]);
      linkPackages(dir, others);
      const result = await npm(dir, ['test']).catch((error: { stdout: string; stderr: string }) => {
        throw new Error(`npm test failed in examples/${name}:\n${error.stdout}\n${error.stderr}`);
      });
      expect(result.stdout).toMatch(/# pass [1-9]/);
      expect(result.stdout).toMatch(/# fail 0/);
    },
    180_000,
  );
});
