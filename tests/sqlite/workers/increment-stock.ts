/**
 * A separate process for the concurrency and crash tests: opens the database, says `ready`, waits for
 * `go` on stdin, then adds 1 to the stock of pet 1 `count` times with `inFlight` updates at once,
 * printing `committed <quantity after>` as each update's promise resolves. Each increment is a read and
 * a conditional write of the version read (If-Match, as a client would), retried when another writer
 * got there first: a lost update would show as a missing count. Any error goes to stderr
 * and the exit code is 1.
 *
 * Around the updates it prints `started` and `finished`, so that a parent can tell the runs of two
 * workers overlapped.
 *
 * Usage: node --import tsx increment-stock.ts <database> <count> <inFlight> <inline|worker>
 */
import { createInterface } from 'node:readline';
import { openSqliteStorage } from '../../../src/adapters/sqlite/sqlite-storage.js';
import { petId } from '../../../src/domain/pet-id.js';
import { quantity } from '../../../src/domain/quantity.js';

function isWriter(text: string | undefined): text is 'inline' | 'worker' {
  return text === 'inline' || text === 'worker';
}

const [path, countText, inFlightText, writer] = process.argv.slice(2);
if (path === undefined || countText === undefined || inFlightText === undefined || !isWriter(writer)) {
  throw new Error('usage: increment-stock.ts <database> <count> <inFlight> <inline|worker>');
}
const count = Number(countText);
const inFlight = Number(inFlightText);

const storage = openSqliteStorage({ path, writer });

async function waitForGo(): Promise<void> {
  process.stdout.write('ready\n');
  for await (const line of createInterface({ input: process.stdin })) if (line === 'go') return;
  throw new Error('stdin closed before go');
}

/** Adds 1 to pet 1's stock, retrying on a version another writer moved; resolves to the new quantity. */
async function increment(): Promise<number> {
  for (;;) {
    const entry = await storage.inventory.get(petId(1n));
    if (entry === undefined) throw new Error('pet 1 is missing');
    const result = await storage.inventory.write({
      orders: [
        { kind: 'set', petId: petId(1n), quantity: quantity(entry.item.quantity + 1), ifVersion: [entry.version] },
      ],
      actor: `pid-${process.pid}`,
      atMs: Date.now(),
    });
    if (result.ok) return result.value.entries[0]?.change.after.quantity ?? 0;
    if (result.error.code !== 'precondition_failed') throw new Error(`the write was refused: ${result.error.code}`);
  }
}

let started = 0;
async function lane(): Promise<void> {
  while (started < count) {
    started += 1;
    const after = await increment();
    // Pipes are written synchronously on Linux: once this returns, the parent can read the line.
    process.stdout.write(`committed ${after}\n`);
  }
}

try {
  await waitForGo();
  process.stdout.write('started\n');
  await Promise.all(Array.from({ length: inFlight }, lane));
  process.stdout.write('finished\n');
  await storage.close();
  process.exit(0);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}
