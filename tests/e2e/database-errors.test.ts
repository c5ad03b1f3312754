import { spawn } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { childEnv } from '../../support/service-process.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';

const MAIN = join(import.meta.dirname, '../../src/main.ts');

/** How a run of the service ended. */
interface Outcome {
  readonly code: number | null;
  readonly stderr: string;
}

/**
 * Root writes any file whatever its mode, through the capabilities that override file permissions. A
 * command run under this keeps root's identity (so it still reads the checkout, wherever that lives and
 * whatever its folder's mode) but loses those capabilities, so a read-only file refuses it as it would
 * any user. Another user would be refused by a checkout in a mode-700 folder before reaching the file.
 */
const WITHOUT_PERMISSION_OVERRIDE = ['setpriv', '--bounding-set', '-dac_override,-dac_read_search,-fowner', '--'];

/**
 * Runs `main.ts serve` (or another command) with `PETSTORE_DB=path`; with `bound`, subject to file
 * permissions even as root.
 */
function run(path: string, args: readonly string[] = ['serve'], bound = false): Promise<Outcome> {
  const asRoot = process.getuid?.() === 0;
  const [command = process.execPath, ...prefix] =
    bound && asRoot ? [...WITHOUT_PERMISSION_OVERRIDE, process.execPath] : [process.execPath];
  const child = spawn(command, [...prefix, '--import', 'tsx', MAIN, ...args], {
    env: childEnv({ PETSTORE_DB: path, PETSTORE_ENV: 'production', HOST: '127.0.0.1', PORT: '0' }),
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (t: string) => {
    stderr += t;
  });
  // A start that does not fail is a failure of this test: stop it so that the test ends.
  child.stdout.setEncoding('utf8').on('data', (t: string) => {
    if (t.includes('"msg":"listening"')) child.kill('SIGKILL');
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

let temp: TempDatabase;
beforeEach(async () => {
  temp = await tempDatabase();
});
afterEach(async () => {
  await chmod(temp.dir, 0o700);
  await temp.remove();
});

describe('a database file the service cannot use', () => {
  it('names PETSTORE_DB and the path when the path is a folder', async () => {
    await mkdir(temp.path);
    const outcome = await run(temp.path);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toBe(`error: PETSTORE_DB=${temp.path}: unable to open database file\n`);
  });

  it('names PETSTORE_DB and the path when the file is not a database', async () => {
    await writeFile(temp.path, 'this is a text file, not SQLite; '.repeat(10));
    for (const args of [['serve'], ['keys', 'list']]) {
      const outcome = await run(temp.path, args);
      expect(outcome.code).toBe(1);
      expect(outcome.stderr).toBe(`error: PETSTORE_DB=${temp.path}: file is not a database\n`);
    }
  });

  it('fails at once on /proc/nope/p.db instead of hanging', async () => {
    const outcome = await run('/proc/nope/p.db');
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toMatch(/^error: PETSTORE_DB=\/proc\/nope\/p\.db: ENOENT: .*mkdir '\/proc\/nope'\n$/);
  }, 15_000);

  it('names PETSTORE_DB and the path when the file can be read but not written, before serving', async () => {
    const storage = openSqliteStorage({ path: temp.path });
    await storage.close();
    await chmod(temp.path, 0o444);
    // The folder stays writable: the journal files can be made, and only the file itself refuses.
    await chmod(temp.dir, 0o777);
    const outcome = await run(temp.path, ['serve'], true);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toBe(`error: PETSTORE_DB=${temp.path}: attempt to write a readonly database\n`);
  });
});
