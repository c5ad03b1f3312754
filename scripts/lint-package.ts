/**
 * Lints the package as npm would publish it: packs it once (`npm pack`, whose prepack builds dist from
 * nothing), then runs publint (strict) and @arethetypeswrong/cli with the ESM profile (the package is ESM
 * only, so require() from CommonJS and node10 resolution are out of scope) over that one tarball. Fails
 * on any problem either reports. Linting the tarball, not the folder, means a fresh clone with no dist
 * is linted as it would be published, and a stale dist is never what is checked.
 * Usage: npm run lint:package
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
const folder = mkdtempSync(join(tmpdir(), 'petstore-lint-package-'));

let failed = false;
try {
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', folder], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  const [packed] = JSON.parse(stdout) as [{ filename: string }];
  const tarball = join(folder, packed.filename);

  // Strict: every suggestion and warning counts as an error.
  const bytes = readFileSync(tarball);
  const { messages } = await publint({
    strict: true,
    pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
  });
  for (const message of messages) {
    failed = true;
    process.stderr.write(`publint: ${message.type}: ${formatMessage(message, pkg) ?? message.code}\n`);
  }

  try {
    await run(
      join(root, 'node_modules', '.bin', 'attw'),
      [tarball, '--profile', 'esm-only', '--format', 'table-flipped'],
      {
        cwd: root,
      },
    );
  } catch (error) {
    failed = true;
    const { stdout: out = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    process.stderr.write(`attw:\n${out}${stderr}\n`);
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}

if (failed) process.exit(1);
process.stdout.write('publint and attw (ESM profile): no problem\n');
