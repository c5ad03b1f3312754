import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { aPet } from '../../src/testing/index.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';

const HOLDS = 2_500;

let temp: TempDatabase;
beforeEach(async () => {
  temp = await tempDatabase();
  // Held an hour from now, as the program's clock reads them: more than two pages of the listing.
  const storage = openSqliteStorage({ path: temp.path });
  try {
    await storage.pets.addAll([aPet(1, { quantity: quantity(HOLDS) })]);
    const atMs = Date.now();
    await Promise.all(
      Array.from({ length: HOLDS }, (_, i) =>
        storage.inventory.writeReservation({
          reservation: { kind: 'reserve', petId: petId(1n), quantity: quantity(1), ttlMs: 3_600_000 },
          actor: `key_${i % 3}`,
          atMs,
        }),
      ),
    );
  } finally {
    await storage.close();
  }
});
afterEach(async () => {
  await temp.remove();
});

/**
 * Runs `petstore reservations list` as a process whose stdout's reader takes `lines` lines and goes,
 * as `| head -n LINES` does; resolves to the lines it took, the exit code and stderr.
 */
function listInto(lines: number): Promise<{ code: number; taken: string[]; stderr: string }> {
  const { REDIS_URL: _redis, ...env } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'reservations', 'list'], {
    cwd: process.cwd(),
    env: { ...env, PETSTORE_DB: temp.path, PETSTORE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk;
    if (text.split('\n').length > lines) child.stdout.destroy();
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, taken: text.split('\n').slice(0, lines), stderr }));
  });
}

describe('petstore reservations list | head', () => {
  it('ends with exit code 0 and no error once its reader has taken what it wanted', async () => {
    const { code, taken, stderr } = await listInto(3);
    expect(taken).toHaveLength(3);
    for (const line of taken) expect(line).toMatch(/^res_[0-9a-f]{32}\t1\t1\tkey_[0-2]\t/);
    expect(stderr).not.toMatch(/error/);
    expect(code).toBe(0);
  });

  it('lists every hold to a reader that reads them all', async () => {
    const { code, taken, stderr } = await listInto(HOLDS + 1);
    expect(taken.filter(Boolean)).toHaveLength(HOLDS);
    expect(new Set(taken.filter(Boolean).map((line) => line.split('\t')[0])).size).toBe(HOLDS);
    expect(stderr).toBe(`${HOLDS} held\n`);
    expect(code).toBe(0);
  });
});
