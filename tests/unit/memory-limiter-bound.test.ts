import { describe, expect, it } from 'vitest';
import { ADDRESS_BUCKET_BYTES, ADDRESS_ENTRY_BYTES } from '../../src/adapters/memory/address-subjects.js';
import { MemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.js';
import { PLAN_POLICIES } from '../../src/domain/plan.js';
import { ManualClock } from '../../src/testing/index.js';

const FREE = PLAN_POLICIES.free;

/** What an address that sent one request is reckoned at: its entry, one minute bucket and one day bucket. */
const ONE_REQUEST = ADDRESS_ENTRY_BYTES + 2 * ADDRESS_BUCKET_BYTES;

/** A limiter whose address subjects may take what `addresses` addresses of one request each take. */
const limiterFor = (clock: ManualClock, addresses: number, extraBytes = 0) =>
  new MemoryRateLimiter(clock, { addressBudgetBytes: addresses * ONE_REQUEST + extraBytes });

/** Sends requests of `subject` until it is banned (the minute's 60, then 20 refusals). */
function ban(limiter: MemoryRateLimiter, subject: string): void {
  while (limiter.admitNow(subject, FREE).outcome !== 'key_banned');
}

describe('the in-process limiter keeps client addresses within a memory budget', () => {
  it('evicts the least recently seen address first', () => {
    const clock = new ManualClock();
    const limiter = limiterFor(clock, 3);
    for (const address of ['ip:a', 'ip:b', 'ip:c']) limiter.admitNow(address, FREE);
    clock.advance(1);
    limiter.admitNow('ip:a', FREE);
    // ip:a's second request fell in the same buckets, so it still takes ONE_REQUEST.
    limiter.admitNow('ip:d', FREE);
    expect(['ip:a', 'ip:b', 'ip:c', 'ip:d'].filter((s) => limiter.tracks(s))).toEqual(['ip:a', 'ip:c', 'ip:d']);
  });

  it('holds no more addresses than its budget, however many send', () => {
    const clock = new ManualClock();
    const limiter = limiterFor(clock, 100);
    for (let i = 0; i < 10_000; i += 1) limiter.admitNow(`ip:10.0.${i >> 8}.${i & 255}`, FREE);
    expect(limiter.size).toBe(100);
  });

  it('starts an evicted address afresh when it comes back', () => {
    const clock = new ManualClock();
    const limiter = limiterFor(clock, 2);
    for (let i = 0; i < 10; i += 1) limiter.admitNow('ip:a', FREE);
    limiter.admitNow('ip:b', FREE);
    limiter.admitNow('ip:c', FREE);
    expect(limiter.tracks('ip:a')).toBe(false);
    expect(limiter.admitNow('ip:a', FREE)).toMatchObject({ outcome: 'admitted', remaining: 59 });
  });

  it('keeps an address that holds a ban while others can go', () => {
    const clock = new ManualClock();
    const limiter = limiterFor(clock, 3, 30 * ADDRESS_BUCKET_BYTES);
    ban(limiter, 'ip:banned');
    for (let i = 0; i < 50; i += 1) limiter.admitNow(`ip:newcomer-${i}`, FREE);
    expect(limiter.tracks('ip:banned')).toBe(true);
    expect(limiter.admitNow('ip:banned', FREE).outcome).toBe('key_banned');
  });

  it('keeps every key exactly, whatever the addresses budget', () => {
    const clock = new ManualClock();
    const limiter = limiterFor(clock, 1);
    for (let i = 0; i < 1_000; i += 1) limiter.admitNow(`key:${i}`, FREE);
    for (let i = 0; i < 1_000; i += 1) limiter.admitNow(`ip:${i}`, FREE);
    expect(limiter.size).toBe(1_001);
    expect(limiter.admitNow('key:0', FREE)).toMatchObject({ outcome: 'admitted', remaining: 58 });
  });
});

describe('the snapshot taken at a graceful stop', () => {
  it('holds the keys and the addresses that hold a ban, and no other address', () => {
    const clock = new ManualClock();
    const limiter = new MemoryRateLimiter(clock);
    limiter.admitNow('key:k', FREE);
    limiter.admitNow('ip:quiet', FREE);
    ban(limiter, 'ip:banned');
    for (let i = 0; i < 59; i += 1) limiter.admitNow('page:busy', FREE);
    expect(limiter.serialise().map((record) => record.subject)).toEqual(['key:k', 'ip:banned']);
  });

  it('restores the banned address, banned still', () => {
    const clock = new ManualClock();
    const limiter = new MemoryRateLimiter(clock);
    ban(limiter, 'ip:banned');
    const next = new MemoryRateLimiter(clock);
    expect(next.restore(limiter.serialise())).toEqual({ restored: 1, skipped: 0 });
    expect(next.admitNow('ip:banned', FREE).outcome).toBe('key_banned');
  });
});
