import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The checkout: its node_modules holds every peer, already built (better-sqlite3's native binding). */
export const root = join(import.meta.dirname, '..', '..');

/** `npm pack`s the checkout (prepack builds dist) into a new temporary folder; resolves to the tarball. */
export async function packTarball(): Promise<{ readonly dir: string; readonly tarball: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-pack-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: root,
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
