import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.js';
import { openSqliteStorage, type SqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { PLAN_POLICIES } from '../../src/domain/plan.js';
import { ManualClock } from '../../src/testing/index.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';

const FREE = PLAN_POLICIES.free;

let temp: TempDatabase;
let clock: ManualClock;
beforeEach(async () => {
  temp = await tempDatabase();
  clock = new ManualClock();
});
afterEach(async () => {
  await temp.remove();
});

/** Saves `limiter` into the file as a stopping service does, closes it, and restores a new limiter from it. */
async function restart(
  limiter: MemoryRateLimiter,
): Promise<{ limiter: MemoryRateLimiter; restored: number; skipped: number }> {
  const before: SqliteStorage = openSqliteStorage({ path: temp.path });
  before.limiterSnapshot.save(limiter.serialise());
  await before.close();
  const after = openSqliteStorage({ path: temp.path });
  try {
    const next = new MemoryRateLimiter(clock);
    return { limiter: next, ...next.restore(after.limiterSnapshot.load()) };
  } finally {
    await after.close();
  }
}

/** Sends requests of `subject` until one is refused, and answers that refusal. */
function exhaustMinute(limiter: MemoryRateLimiter, subject: string) {
  for (;;) {
    const decision = limiter.admitNow(subject, FREE);
    if (decision.outcome !== 'admitted') return decision;
  }
}

describe('the in-process limiter across a graceful restart', () => {
  it('keeps a ban, with the time it has left', async () => {
    const limiter = new MemoryRateLimiter(clock);
    exhaustMinute(limiter, 'key:a');
    for (let i = 0; i < 19; i += 1) limiter.admitNow('key:a', FREE);
    const banned = limiter.admitNow('key:a', FREE);
    expect(banned.outcome).toBe('key_banned');
    clock.advance(60_000);

    const { limiter: next } = await restart(limiter);
    const decision = next.admitNow('key:a', FREE);
    expect(decision.outcome).toBe('key_banned');
    expect(decision.retryAfterMs).toBe(banned.retryAfterMs - 60_000);
  });

  it('keeps a day’s spent requests: a free key that used its 1,000 stays refused', async () => {
    const limiter = new MemoryRateLimiter(clock);
    for (let used = 0; used < FREE.perDay; used += 1) {
      // 50 a minute: the minute window never refuses, so no strike is counted on the way.
      if (used > 0 && used % 50 === 0) clock.advance(61_000);
      expect(limiter.admitNow('key:b', FREE).outcome).toBe('admitted');
    }
    clock.advance(61_000);
    const refused = limiter.admitNow('key:b', FREE);
    expect(refused).toMatchObject({ outcome: 'rate_limited', remaining: 0 });

    const { limiter: next } = await restart(limiter);
    expect(next.admitNow('key:b', FREE)).toEqual(refused);
  });

  it('keeps what a key has used of its minute', async () => {
    const limiter = new MemoryRateLimiter(clock);
    for (let i = 0; i < 10; i += 1) limiter.admitNow('key:c', FREE);
    const { limiter: next } = await restart(limiter);
    expect(next.admitNow('key:c', FREE)).toMatchObject({ outcome: 'admitted', remaining: 49 });
  });

  it('writes only the subjects that still matter', async () => {
    const limiter = new MemoryRateLimiter(clock);
    limiter.admitNow('key:old', FREE);
    clock.advance(86_400_000 + 300_000);
    limiter.admitNow('key:new', FREE);
    expect(limiter.serialise().map((record) => record.subject)).toEqual(['key:new']);
  });

  it('replaces the whole snapshot at every save', async () => {
    const first = new MemoryRateLimiter(clock);
    first.admitNow('key:first', FREE);
    await restart(first);
    const second = new MemoryRateLimiter(clock);
    second.admitNow('key:second', FREE);
    const { limiter: next, restored } = await restart(second);
    expect(restored).toBe(1);
    expect(next.serialise().map((record) => record.subject)).toEqual(['key:second']);
  });

  it('skips and counts a record it cannot read, and restores the others', async () => {
    const limiter = new MemoryRateLimiter(clock);
    limiter.admitNow('key:good', FREE);
    const records = [
      ...limiter.serialise(),
      { subject: 'key:damaged', state: '{"v":1,"m":[[5,1],[4,1]]' },
      {
        subject: 'key:unsorted',
        state: '{"v":1,"m":[[5,1],[4,1]],"mn":5,"d":[],"dn":null,"s":[],"u":0,"l":null,"lv":-1}',
      },
      { subject: 'key:future', state: '{"v":2}' },
    ];
    const next = new MemoryRateLimiter(clock);
    expect(next.restore(records)).toEqual({ restored: 1, skipped: 3 });
    expect(next.size).toBe(1);
  });

  it('starts empty from a file that never held a snapshot', async () => {
    const storage = openSqliteStorage({ path: temp.path });
    try {
      expect(storage.limiterSnapshot.load()).toEqual([]);
    } finally {
      await storage.close();
    }
  });
});
