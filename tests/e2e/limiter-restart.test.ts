import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { startRedisServer } from '../../support/redis-server.js';
import { type ServiceProcess, startService } from '../../support/service-process.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';
import { hasRedisServer } from '../redis/redis-fixture.js';
import { issueFreeKey } from '../support/issue-key.js';

let temp: TempDatabase;
let key: string;
const running: ServiceProcess[] = [];
beforeEach(async () => {
  temp = await tempDatabase();
  key = await issueFreeKey(temp.path);
});
afterEach(async () => {
  for (const s of running.splice(0)) if (s.child.exitCode === null) await s.stop();
  await temp.remove();
});

const start = async (env: Record<string, string> = {}): Promise<ServiceProcess> => {
  const s = await startService({ PETSTORE_DB: temp.path, PETSTORE_ENV: 'production', ...env });
  running.push(s);
  return s;
};

/** Spends the key's minute and refuses on until the ban falls; answers the ban's Retry-After. */
async function getBanned(url: string): Promise<number> {
  for (let i = 0; i < 200; i += 1) {
    const response = await fetch(`${url}/v1/inventory`, { headers: { authorization: `Bearer ${key}` } });
    const body = (await response.json()) as { code?: string };
    if (body.code === 'key_banned') return Number(response.headers.get('retry-after'));
  }
  throw new Error('the key was never banned');
}

const snapshotSize = async (): Promise<number> => {
  const storage = openSqliteStorage({ path: temp.path });
  try {
    return storage.limiterSnapshot.load().length;
  } finally {
    await storage.close();
  }
};

describe('a graceful restart of a single instance (in-process limiter)', () => {
  it('keeps a banned key banned', async () => {
    const first = await start();
    const retryAfter = await getBanned(first.url);
    expect(retryAfter).toBeGreaterThan(200);
    expect(await first.stop()).toBe(0);
    expect(first.stdout()).toMatch(/"subjects":1,"msg":"rate limiter state saved"/);

    const second = await start();
    expect(second.stdout()).toMatch(/"subjects":1,"unreadable":0,"msg":"rate limiter state restored"/);
    const response = await fetch(`${second.url}/v1/inventory`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(429);
    expect(await response.json()).toMatchObject({ code: 'key_banned' });
    expect(Number(response.headers.get('retry-after'))).toBeLessThanOrEqual(retryAfter);
  }, 60_000);
});

describe.skipIf(!hasRedisServer)('with Redis', () => {
  it('writes no snapshot: the shared state lives in Redis', async () => {
    const redis = await startRedisServer();
    try {
      const s = await start({ REDIS_URL: redis.url });
      await getBanned(s.url);
      expect(await s.stop()).toBe(0);
      expect(await snapshotSize()).toBe(0);
    } finally {
      await redis.stop();
    }
  }, 60_000);
});
