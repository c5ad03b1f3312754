import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The checkout: its node_modules holds every peer, already built (better-sqlite3's native binding). */
export const root = join(import.meta.dirname, '..', '..');

/**
 * `npm pack`s the checkout into a new temporary folder; resolves to the tarball. It packs a copy of the
 * checkout's files (tracked, and new ones git does not ignore, as they are on disk) with its node_modules
 * linked: prepack deletes and rebuilds dist/, and in the checkout that would pull the console bundle
 * from under every service another test file, or `npm start`, runs meanwhile.
 */
export async function packTarball(): Promise<{ readonly dir: string; readonly tarball: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-pack-'));
  const copy = join(dir, 'checkout');
  const { stdout: listed } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
  });
  // A tracked file deleted in the working tree is not copied, as npm pack of the checkout would not find it.
  for (const file of listed.split('\0').filter((f) => f !== '' && existsSync(join(root, f)))) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    copyFileSync(join(root, file), join(copy, file));
  }
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: copy,
    maxBuffer: 64 * 1024 * 1024,
  });
  const [packed] = JSON.parse(stdout) as [{ filename: string }];
  return { dir, tarball: join(dir, packed.filename) };
}

/**
 * A new project in `dir` with `package.json` (ESM) and the tarball installed, nothing else: what a user
 * gets from `npm install petstore-inventory`.
 */
export async function projectWith(tarball: string, dir: string, manifest: object = {}): Promise<string> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module', ...manifest }));
  await npm(dir, ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball]);
  return dir;
}

/** Runs npm in `cwd`; resolves to its output. */
export async function npm(cwd: string, args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
  return run('npm', args, { cwd, maxBuffer: 16 * 1024 * 1024 });
}

/**
 * Links `packages` from the checkout's node_modules into `project`'s, instead of installing them: no
 * registry, no native build. Node follows the links to the checkout, where their own dependencies are.
 */
export function linkPackages(project: string, packages: readonly string[]): void {
  for (const name of packages) {
    const target = join(project, 'node_modules', name);
    rmSync(target, { recursive: true, force: true });
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), target, 'dir');
  }
}

/** The packages of an `npm install a b c` line in `text`. */
export function installLine(text: string): string[] {
  const line = /npm install ([^\n]+)/.exec(text)?.[1];
  if (line === undefined) throw new Error(`no npm install line in: ${text}`);
  return line.trim().split(/\s+/);
}

/** A `petstore serve` started by npx in a project, and what it printed so far. */
export interface PackedService {
  readonly child: ChildProcessWithoutNullStreams;
  /** What `ready` matched on stdout. */
  readonly match: RegExpExecArray;
  /** Everything printed, stdout and stderr. */
  output(): string;
}

/**
 * Starts `npx petstore serve` in `project`, in a process group of its own (signalled whole, as a
 * terminal's Ctrl-C is: npx does not pass a signal on to the command it runs), and resolves once its
 * stdout matches `ready`; rejects with what it printed if it exits first or takes longer than 30 s.
 */
export function startPackedService(project: string, env: NodeJS.ProcessEnv, ready: RegExp): Promise<PackedService> {
  const child = spawn('npx', ['--no', '--', 'petstore', 'serve'], { cwd: project, detached: true, env });
  let out = '';
  child.stderr.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  return new Promise<PackedService>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready after 30 s:\n${out}`)), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = ready.exec(out);
      if (match !== null) {
        clearTimeout(timer);
        resolve({ child, match, output: () => out });
      }
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${out}`)));
  });
}
