import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { aPet, drain } from '../../src/testing/index.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';
import { startWorker } from './worker-process.js';

const WORKER = join('tests', 'sqlite', 'workers', 'increment-stock.ts');

let temp: TempDatabase;
beforeEach(async () => {
  temp = await tempDatabase();
  const storage = openSqliteStorage({ path: temp.path });
  await storage.pets.addAll([aPet(1, { quantity: quantity(0), status: 'sold' })]);
  await storage.close();
});
afterEach(async () => {
  await temp.remove();
});

async function stockOfPet1(): Promise<{ quantity: number; afters: number[] }> {
  const storage = openSqliteStorage({ path: temp.path });
  try {
    const { items } = await drain(storage.inventory.list());
    const history = [...((await storage.changes.history(petId(1n), { limit: 100_000 })) ?? [])].reverse();
    return { quantity: items[0]?.quantity ?? -1, afters: history.map((h) => h.after.quantity) };
  } finally {
    await storage.close();
  }
}

describe('two processes writing one database file', () => {
  it('lose no update and never fail with SQLITE_BUSY', async () => {
    const perWorker = 1_000;
    // Every line of both workers, in the order the parent read them.
    const events: string[] = [];
    // Sequential updates on the store's connection in one, batched updates in a writer thread in the
    // other: both kinds of transaction, and both writers, contend.
    const workers = (
      [
        [1, 'inline'],
        [8, 'worker'],
      ] as const
    ).map(([inFlight, writer], n) =>
      startWorker(WORKER, [temp.path, String(perWorker), String(inFlight), writer], (line) =>
        events.push(`${n} ${line}`),
      ),
    );
    await Promise.all(workers.map((w) => w.waitFor('ready')));
    for (const w of workers) w.child.stdin.write('go\n');
    const results = await Promise.all(workers.map((w) => w.exited));

    for (const result of results) expect(result).toEqual({ code: 0, signal: null, stderr: '' });
    for (const w of workers) expect(w.lines.filter((l) => l.startsWith('committed '))).toHaveLength(perWorker);
    const { quantity: final, afters } = await stockOfPet1();
    expect(final).toBe(2 * perWorker);
    expect(afters).toEqual(Array.from({ length: 2 * perWorker }, (_, i) => i + 1));
    // The two really wrote at once: each had started before the other finished.
    expect(events.indexOf('0 started')).toBeLessThan(events.indexOf('1 finished'));
    expect(events.indexOf('1 started')).toBeLessThan(events.indexOf('0 finished'));
  });
});

describe('a process killed in the middle of a stream of updates', () => {
  it.each(['inline', 'worker'])('leaves every update it reported committed in the file (%s writer)', async (writer) => {
    const reported: number[] = [];
    let killed = false;
    const worker = startWorker(WORKER, [temp.path, '1000000', '8', writer], (line) => {
      if (!line.startsWith('committed ')) return;
      reported.push(Number(line.slice('committed '.length)));
      if (!killed && reported.length >= 400) {
        killed = true;
        worker.child.kill('SIGKILL');
      }
    });
    await worker.waitFor('ready');
    worker.child.stdin.write('go\n');
    const result = await worker.exited;

    expect(result.signal).toBe('SIGKILL');
    expect(reported.length).toBeGreaterThanOrEqual(400);
    const { quantity: final, afters } = await stockOfPet1();
    expect(final).toBeGreaterThanOrEqual(Math.max(...reported));
    expect(afters).toEqual(Array.from({ length: final }, (_, i) => i + 1));
    const stored = new Set(afters);
    expect(reported.filter((q) => !stored.has(q))).toEqual([]);
  });
});
