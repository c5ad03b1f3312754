/**
 * A separate process for the concurrency and crash tests: opens the database, says `ready`, waits for
 * `go` on stdin, then adds 1 to the stock of pet 1 `count` times with `inFlight` updates at once,
 * printing `committed <quantity after>` as each update's promise resolves. Any error goes to stderr
 * and the exit code is 1.
 *
 * Around the updates it prints `started` and `finished`, so that a parent can tell the runs of two
 * workers overlapped.
 *
 * Usage: node --import tsx increment-stock.ts <database> <count> <inFlight>
 */
import { createInterface } from 'node:readline';
import { openSqliteStorage } from '../../../src/adapters/sqlite/sqlite-storage.js';
import { type InventoryItem, withStock } from '../../../src/domain/inventory-item.js';
import { petId } from '../../../src/domain/pet-id.js';
import { quantity } from '../../../src/domain/quantity.js';

const [path, countText, inFlightText] = process.argv.slice(2);
if (path === undefined || countText === undefined || inFlightText === undefined) {
  throw new Error('usage: increment-stock.ts <database> <count> <inFlight>');
}
const count = Number(countText);
const inFlight = Number(inFlightText);

const storage = openSqliteStorage({ path });
const increment = (c: InventoryItem): InventoryItem => withStock(c, quantity(c.quantity + 1));

async function waitForGo(): Promise<void> {
  process.stdout.write('ready\n');
  for await (const line of createInterface({ input: process.stdin })) if (line === 'go') return;
  throw new Error('stdin closed before go');
}

let started = 0;
async function lane(): Promise<void> {
  while (started < count) {
    started += 1;
    const change = await storage.inventory.update(petId(1n), increment, `pid-${process.pid}`, Date.now());
    if (change === undefined) throw new Error('pet 1 is missing');
    // Pipes are written synchronously on Linux: once this returns, the parent can read the line.
    process.stdout.write(`committed ${change.after.quantity}\n`);
  }
}

try {
  await waitForGo();
  process.stdout.write('started\n');
  await Promise.all(Array.from({ length: inFlight }, lane));
  process.stdout.write('finished\n');
  storage.close();
  process.exit(0);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}
