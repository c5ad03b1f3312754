/**
 * One measure of bench/address-memory.ts, in a process of its own so that its RSS is its own: one
 * keyless request from each of `addresses` client addresses, decided by the in-process limiter directly
 * (no HTTP), then the process's RSS and V8 heap after a full garbage collection, as one JSON line.
 * Usage: node --expose-gc --import tsx bench/address-memory-child.ts <addresses> <bounded|unbounded> [full]
 * `full`: each address fills both windows (a request in every bucket of the day and of the minute), the
 * most an address's state holds, to check what the limiter reckons an address takes.
 */
import { MemoryRateLimiter } from '../src/adapters/memory/memory-rate-limiter.js';
import type { Clock } from '../src/application/ports/clock.js';

const [addressesArg = '0', bound = 'bounded', shape = 'one'] = process.argv.slice(2);
const addresses = Number(addressesArg);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

let nowMs = Date.UTC(2026, 10, 28);
const clock: Clock = { nowMs: () => nowMs };
const limiter = new MemoryRateLimiter(clock, bound === 'unbounded' ? { addressBudgetBytes: Infinity } : {});
const unlimited = { perMinute: 1_000_000_000, perDay: 1_000_000_000 };
const FREE = { perMinute: 60, perDay: 1_000 };
const subjectOf = (i: number): string => `ip:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

gc();
const before = process.memoryUsage();
const started = performance.now();
if (shape === 'full') {
  // 288 five-minute buckets of the day, then 60 one-second buckets of the minute.
  for (let step = 0; step < 288 + 60; step += 1) {
    nowMs += step < 288 ? 300_000 : 1_000;
    for (let i = 0; i < addresses; i += 1) limiter.admitNow(subjectOf(i), unlimited);
  }
} else {
  for (let i = 0; i < addresses; i += 1) limiter.admitNow(subjectOf(i), FREE);
}
const seconds = (performance.now() - started) / 1000;
gc();
const after = process.memoryUsage();
process.stdout.write(
  `${JSON.stringify({
    addresses,
    bound,
    shape,
    tracked: limiter.size,
    seconds,
    rssBefore: before.rss,
    rssAfter: after.rss,
    heapBefore: before.heapUsed,
    heapAfter: after.heapUsed,
  })}\n`,
);
