/**
 * Lints the package as npm would publish it: publint (strict) over its files and exports, and
 * @arethetypeswrong/cli over the packed tarball with the ESM profile (the package is ESM only, so
 * require() from CommonJS and node10 resolution are out of scope). Fails on any problem either reports.
 *
 * `petstore-inventory/testing` is built from src/testing; until that folder exists its entry cannot
 * resolve, and both tools leave that one entry out (said on stderr), checking every other.
 * Usage: npm run lint:package
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';

const root = join(import.meta.dirname, '..');
const pkg = (await import(join(root, 'package.json'), { with: { type: 'json' } })).default as Record<string, unknown>;
const testingBuilt = existsSync(join(root, 'src', 'testing', 'index.ts'));
if (!testingBuilt) {
  process.stderr.write('lint:package: src/testing is missing, so ./testing is left out of the checks\n');
}

let failed = false;

// Strict: every suggestion and warning counts as an error.
const { messages } = await publint({ pkgDir: root, strict: true, pack: 'npm' });
for (const message of messages) {
  if (!testingBuilt && message.path[0] === 'exports' && message.path[1] === './testing') continue;
  failed = true;
  process.stderr.write(`publint: ${message.type}: ${formatMessage(message, pkg) ?? message.code}\n`);
}

const attw = [
  join(root, 'node_modules', '.bin', 'attw'),
  '--pack',
  '.',
  '--profile',
  'esm-only',
  '--format',
  'table-flipped',
];
if (!testingBuilt) attw.push('--exclude-entrypoints', './testing');
try {
  await promisify(execFile)(attw[0] as string, attw.slice(1), { cwd: root });
} catch (error) {
  failed = true;
  const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
  process.stderr.write(`attw:\n${stdout}${stderr}\n`);
}

if (failed) process.exit(1);
process.stdout.write('publint and attw (ESM profile): no problem\n');
