import { afterEach, describe, expect, it } from 'vitest';
import { rateLimitPolicy } from '../../src/domain/plan.js';
import { quantity } from '../../src/domain/quantity.js';
import { aPet } from '../../src/testing/index.js';
import { freePort, type RedisServer, startRedisServer } from '../../support/redis-server.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';
import { eventually, hasRedisServer } from '../redis/redis-fixture.js';
import { type MeteredService, sample, startMeteredService } from './metrics-service.js';

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const r of running.splice(0).reverse()) await r.close();
});

async function start(...args: Parameters<typeof startMeteredService>): Promise<MeteredService> {
  const service = await startMeteredService(...args);
  running.push(service);
  return service;
}

const decisions = (text: string, outcome: string, limiter: string): number | undefined =>
  sample(text, `petstore_rate_limit_decisions_total{outcome="${outcome}",limiter="${limiter}"}`);

/** Sends `n` requests one after another with `key` and resolves to their statuses. */
async function listTimes(service: MeteredService, key: string, n: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const response = await fetch(`${service.origin}/v1/inventory`, { headers: { authorization: `Bearer ${key}` } });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

/** A Redis URL with nothing listening behind it. */
const deadRedisUrl = async (): Promise<string> => `redis://127.0.0.1:${await freePort()}`;

describe('rate-limit decisions', () => {
  it('are counted by outcome: admitted, limited, then banned, under the in-process limiter', async () => {
    const service = await start({ storage: 'memory', env: { PETSTORE_BAN_STRIKES: '3' } });
    const { key } = await service.core.issueApiKey.execute({ plan: 'free' });
    const statuses = await listTimes(service, key, 64);
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    const text = await service.metrics();
    expect(decisions(text, 'admitted', 'memory')).toBe(60);
    // The third refusal is the strike that bans: it and every later one answer key_banned.
    expect(decisions(text, 'limited', 'memory')).toBe(2);
    expect(decisions(text, 'banned', 'memory')).toBe(2);
  });

  it('are counted under limiter="fallback" while Redis is unreachable, with the failover’s own counters', async () => {
    const service = await start({ storage: 'memory', env: { REDIS_URL: await deadRedisUrl() } });
    const { key } = await service.core.issueApiKey.execute({ plan: 'free' });
    expect(await listTimes(service, key, 3)).toEqual([200, 200, 200]);
    const text = await service.metrics();
    expect(decisions(text, 'admitted', 'fallback')).toBe(3);
    expect(decisions(text, 'admitted', 'redis')).toBe(0);
    expect(sample(text, 'petstore_rate_limiter_fallback_decisions_total')).toBe(3);
    expect(sample(text, 'petstore_rate_limiter_redis_failures_total')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'petstore_rate_limiter_unavailable_total')).toBe(0);
    expect(sample(text, 'petstore_rate_limiter_redis_up')).toBe(0);
  });
});

describe.skipIf(!hasRedisServer)('rate-limit decisions through a real Redis', () => {
  let redis: RedisServer | undefined;
  afterEach(async () => {
    await redis?.stop();
  });

  it('are counted under limiter="redis", bans held in process included', async () => {
    redis = await startRedisServer();
    // A loaded test machine would trip the production 100 ms timeout on a healthy Redis.
    const env = { REDIS_URL: redis.url, PETSTORE_BAN_STRIKES: '3', REDIS_COMMAND_TIMEOUT_MS: '5000' };
    const service = await start({ storage: 'memory', env });
    // The first requests may come before the client connects, and go to the fallback: wait for Redis.
    const warmup = (await service.core.issueApiKey.execute({ plan: 'enterprise', limits: rateLimitPolicy(1000, 1000) }))
      .key;
    await eventually('a decision made by Redis', async () => {
      await listTimes(service, warmup, 1);
      return (decisions(await service.metrics(), 'admitted', 'redis') ?? 0) > 0;
    });
    const before = await service.metrics();
    const { key } = await service.core.issueApiKey.execute({ plan: 'free' });
    expect((await listTimes(service, key, 64)).filter((s) => s === 200)).toHaveLength(60);
    const after = await service.metrics();
    const delta = (outcome: string, limiter: string) =>
      (decisions(after, outcome, limiter) ?? 0) - (decisions(before, outcome, limiter) ?? 0);
    expect(delta('admitted', 'redis')).toBe(60);
    expect(delta('limited', 'redis')).toBe(2);
    // The first ban answer comes from the script; the next from the ban the limiter holds in process.
    expect(delta('banned', 'redis')).toBe(2);
    expect(delta('admitted', 'fallback') + delta('limited', 'fallback') + delta('banned', 'fallback')).toBe(0);
    expect(sample(after, 'petstore_rate_limiter_redis_up')).toBe(1);
  });
});

describe('SQLite group commits', () => {
  let temp: TempDatabase | undefined;
  afterEach(async () => {
    await temp?.remove();
  });

  it('report their batch sizes: updates sent together are committed together', async () => {
    temp = await tempDatabase();
    const service = await start({ storage: 'sqlite', env: { PETSTORE_DB: temp.path } });
    const pets = Array.from({ length: 8 }, (_, i) => aPet(i + 1));
    const added = await service.core.addPets.execute(pets);
    expect(added.ok).toBe(true);
    const updates = await Promise.all(
      pets.map((pet) => service.core.updateStock.execute({ petId: pet.id, quantity: quantity(3), actor: 'key_test' })),
    );
    expect(updates.every((u) => u.ok)).toBe(true);
    const text = await service.metrics();
    expect(sample(text, 'petstore_sqlite_group_commit_updates_sum')).toBe(8);
    expect(sample(text, 'petstore_sqlite_group_commit_updates_count')).toBe(1);
    expect(
      sample(
        text,
        'petstore_storage_operation_duration_seconds_count{port="inventory",operation="write",outcome="ok"}',
      ),
    ).toBe(8);
  });
});
