/**
 * What the in-process limiter's client addresses cost in memory (issue 40, item 3): one keyless request
 * from each of N addresses, decided by MemoryRateLimiter directly (no HTTP), each measure in a fresh
 * process (bench/address-memory-child.ts) so that its RSS is its own. The limiter as shipped (addresses
 * within their budget) beside the same limiter without a budget, as every version before it was; and
 * the bytes an address takes, one request and full windows, against what the limiter reckons.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import {
  ADDRESS_BUCKET_BYTES,
  ADDRESS_ENTRY_BYTES,
  DEFAULT_ADDRESS_BUDGET_BYTES,
} from '../src/adapters/memory/address-subjects.js';
import { count, table } from './stats.js';

const CHILD = join(import.meta.dirname, 'address-memory-child.ts');

export interface AddressMemorySettings {
  /** How many addresses send one request each, one measure per size and per bound. */
  readonly addresses: readonly number[];
  /** How many addresses fill both windows, to weigh an address at its largest. */
  readonly fullAddresses: number;
}

export interface AddressMemoryRow {
  readonly addresses: number;
  readonly bound: 'bounded' | 'unbounded';
  readonly shape: 'one' | 'full';
  readonly tracked: number;
  readonly seconds: number;
  readonly rssBefore: number;
  readonly rssAfter: number;
  readonly heapBefore: number;
  readonly heapAfter: number;
}

function measure(addresses: number, bound: string, shape: string): AddressMemoryRow {
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', CHILD, String(addresses), bound, shape],
    {
      encoding: 'utf8',
      maxBuffer: 1024 * 1024,
    },
  );
  return JSON.parse(out) as AddressMemoryRow;
}

export function runAddressMemorySuite(
  settings: AddressMemorySettings,
  progress: (line: string) => void,
): AddressMemoryRow[] {
  const rows: AddressMemoryRow[] = [];
  for (const addresses of settings.addresses) {
    for (const bound of ['bounded', 'unbounded']) {
      const row = measure(addresses, bound, 'one');
      progress(`addresses ${count(addresses)} ${bound}: RSS ${mb(row.rssAfter)} MB, heap ${mb(row.heapAfter)} MB`);
      rows.push(row);
    }
  }
  rows.push(measure(settings.fullAddresses, 'unbounded', 'full'));
  return rows;
}

const mb = (bytes: number): string => (bytes / 1_000_000).toFixed(0);

const perAddress = (row: AddressMemoryRow): number => (row.heapAfter - row.heapBefore) / row.tracked;

export function addressMemorySection(rows: readonly AddressMemoryRow[]): string {
  const ones = rows.filter((r) => r.shape === 'one');
  const full = rows.find((r) => r.shape === 'full');
  const reckonedOne = ADDRESS_ENTRY_BYTES + 2 * ADDRESS_BUCKET_BYTES;
  const reckonedFull = ADDRESS_ENTRY_BYTES + (61 + 289) * ADDRESS_BUCKET_BYTES;
  return [
    "## In-process limiter: client addresses' memory",
    '',
    '`npm run bench -- --only=addresses`: one keyless request from each of N client addresses, decided by',
    '`MemoryRateLimiter.admitNow` directly (no HTTP), each measure in a fresh Node process',
    '(`node --expose-gc --import tsx bench/address-memory-child.ts <N> <bounded|unbounded>`), RSS and V8 heap',
    'after a full collection, before the first request and after the last. "bounded" is the limiter as',
    `shipped: addresses within a budget of ${mb(DEFAULT_ADDRESS_BUDGET_BYTES)} MB reckoned, least recently seen`,
    'evicted; "unbounded" is the same limiter with no budget, as every earlier version kept addresses (for a day).',
    '',
    table(
      ['addresses', 'limiter', 'addresses kept', 'RSS before, MB', 'RSS after, MB', 'heap after, MB', 'seconds'],
      ones.map((r) => [
        count(r.addresses),
        r.bound,
        count(r.tracked),
        mb(r.rssBefore),
        mb(r.rssAfter),
        mb(r.heapAfter),
        r.seconds.toFixed(1),
      ]),
    ),
    '',
    full === undefined
      ? ''
      : `Heap an address takes: ${count(perAddress(ones[0] as AddressMemoryRow))} bytes after one request ` +
        `(reckoned ${count(reckonedOne)}), ${count(perAddress(full))} with both windows full ` +
        `(${count(full.tracked)} addresses sending in each of the day's 288 buckets and the minute's 60; reckoned ` +
        `${count(reckonedFull)}). RSS keeps what V8 reserved for the garbage of the run on top of the live heap.`,
  ].join('\n');
}
