import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { NodeKeyCrypto } from '../../src/adapters/system/node-key-crypto.js';
import { systemClock } from '../../src/adapters/system/system-clock.js';
import { IssueApiKey } from '../../src/application/use-cases/issue-api-key.js';
import { createPetstoreClient } from '../../src/client/index.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { type RedisServer, startRedisServer } from '../../support/redis-server.js';
import { type ServiceProcess, startService } from '../../support/service-process.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';
import { eventually, hasRedisServer } from '../redis/redis-fixture.js';

interface IssuedKey {
  readonly key: string;
  readonly id: string;
}

describe.skipIf(!hasRedisServer)('two service processes sharing one Redis', () => {
  let temp: TempDatabase;
  let redis: RedisServer;
  let inspector: Redis;
  let a: ServiceProcess;
  let b: ServiceProcess;
  const keys: IssuedKey[] = [];

  beforeAll(async () => {
    temp = await tempDatabase();
    redis = await startRedisServer();
    inspector = new Redis(redis.url, { lazyConnect: true });
    // The outage test kills the server under this client too; its reconnect errors are expected.
    inspector.on('error', () => {});
    await inspector.connect();
    const storage = openSqliteStorage({ path: temp.path });
    try {
      await storage.pets.addAll([{ id: petId(1n), name: 'Rex', quantity: quantity(3), status: 'available' }]);
      const crypto = new NodeKeyCrypto();
      const issue = new IssueApiKey(storage.keys, crypto, crypto, systemClock);
      for (let i = 0; i < 5; i += 1) {
        const { key, record } = await issue.execute({ plan: 'free' });
        keys.push({ key, id: record.id });
      }
    } finally {
      await storage.close();
    }
    // A command timeout far above the default: this suite is about sharing the limit, and on a loaded
    // machine the default 100 ms sends decisions to the in-process fallback, which shares nothing.
    const env = {
      PETSTORE_DB: temp.path,
      PETSTORE_ENV: 'production',
      REDIS_URL: redis.url,
      REDIS_COMMAND_TIMEOUT_MS: '2000',
    };
    [a, b] = await Promise.all([startService(env), startService(env)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    inspector?.disconnect();
    await redis?.stop();
    await temp?.remove();
  });

  /** GET /v1/inventory of one instance with `key`, through the typed client. */
  const get = (instance: ServiceProcess, key: string) =>
    createPetstoreClient({ baseUrl: `${instance.url}/v1`, apiKey: key }).get('/inventory');

  /** 100 requests at once, alternating between the instances; resolves to their statuses. */
  const race = async (key: string): Promise<number[]> => {
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => get(i % 2 === 0 ? a : b, key)));
    return answers.map((r) => r.status);
  };

  const count = (statuses: number[], status: number): number => statuses.filter((s) => s === status).length;

  it('report Redis up in /readyz', async () => {
    for (const instance of [a, b]) {
      const ready = await fetch(`${instance.url}/readyz`);
      expect(await ready.json()).toEqual({ status: 'ready', checks: { sqlite: 'up', redis: 'up' } });
    }
  });

  it('admit exactly 60 of 100 concurrent requests of one free key spread over both', async () => {
    const statuses = await race((keys[0] as IssuedKey).key);
    expect(count(statuses, 200)).toBe(60);
    expect(count(statuses, 429)).toBe(40);
  });

  it('answer every request without a 5xx while Redis is killed, and share the limit again once it is back', async () => {
    const during: number[] = [];
    const traffic = (async () => {
      for (let i = 0; i < 120; i += 1) during.push((await get(i % 2 === 0 ? a : b, (keys[1] as IssuedKey).key)).status);
    })();
    await eventually('some traffic before the kill', () => during.length >= 20);
    await redis.kill();
    await traffic;
    expect(during.filter((s) => s >= 500)).toEqual([]);
    expect(during.every((s) => s === 200 || s === 429)).toBe(true);

    await redis.restart();
    // Each instance probes Redis again after its cool-down; wait until both have written to it.
    const warm = [keys[2] as IssuedKey, keys[3] as IssuedKey];
    await eventually('both instances deciding through Redis again', async () => {
      await Promise.all([get(a, warm[0]?.key as string), get(b, warm[1]?.key as string)]);
      const seen = await Promise.all(warm.map((k) => inspector.exists(`rl:key:${k.id}`)));
      return seen.every((n) => n === 1);
    });
    // A key neither fallback has seen: only a limit shared through Redis holds it to 60 over both.
    const statuses = await race((keys[4] as IssuedKey).key);
    expect(count(statuses, 200)).toBe(60);
    expect(count(statuses, 429)).toBe(40);
  });
});
