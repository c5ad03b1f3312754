import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { NodeKeyCrypto } from '../../src/adapters/system/node-key-crypto.js';
import { systemClock } from '../../src/adapters/system/system-clock.js';
import { IssueApiKey } from '../../src/application/use-cases/issue-api-key.js';
import { createPetstoreClient } from '../../src/client/index.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { type RedisCluster, type RedisClusterMaster, startRedisCluster } from '../../support/redis-cluster.js';
import { type ServiceProcess, startService } from '../../support/service-process.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';
import { hasRedisCluster } from '../redis/redis-cluster-fixture.js';
import { eventually } from '../redis/redis-fixture.js';

interface IssuedKey {
  readonly key: string;
  readonly id: string;
  /** The master that holds its subject's state. */
  master: RedisClusterMaster;
}

const count = (statuses: readonly number[], status: number): number => statuses.filter((s) => s === status).length;

describe.skipIf(!hasRedisCluster)('service processes sharing one Redis Cluster', () => {
  let temp: TempDatabase;
  let cluster: RedisCluster;
  let inspector: Cluster;
  // Two instances that fail open, and one that fails closed.
  let a: ServiceProcess;
  let b: ServiceProcess;
  let closed: ServiceProcess;
  const keys: IssuedKey[] = [];

  beforeAll(async () => {
    temp = await tempDatabase();
    cluster = await startRedisCluster();
    inspector = new Cluster(
      cluster.nodes.map((n) => ({ ...n })),
      { enableOfflineQueue: false },
    );
    // The outage test kills a master under this client too; its errors are expected.
    inspector.on('error', () => {});
    inspector.on('node error', () => {});
    const storage = openSqliteStorage({ path: temp.path });
    try {
      await storage.pets.addAll([{ id: petId(1n), name: 'Rex', quantity: quantity(3), status: 'available' }]);
      const crypto = new NodeKeyCrypto();
      const issue = new IssueApiKey(storage.keys, crypto, crypto, systemClock);
      // Key ids are random, so where a key's state lives is too: issue until every master holds the
      // 5 keys a test may take from it (24 keys left the second master with 4 or fewer in about 6 % of runs).
      const held = (master: RedisClusterMaster) => keys.filter((k) => k.master === master).length;
      while (cluster.masters.some((m) => held(m) < 5)) {
        if (keys.length >= 200) throw new Error('200 keys issued and a master still holds fewer than 5');
        const { key, record } = await issue.execute({ plan: 'free' });
        keys.push({ key, id: record.id, master: await cluster.masterOf(`rl:key:${record.id}`) });
      }
    } finally {
      await storage.close();
    }
    // A command timeout far above the default: this suite is about sharing the limit, and on a loaded
    // machine the default 100 ms sends decisions to the in-process fallback, which shares nothing.
    const env = {
      PETSTORE_DB: temp.path,
      PETSTORE_ENV: 'production',
      REDIS_CLUSTER_NODES: cluster.nodesSetting,
      REDIS_COMMAND_TIMEOUT_MS: '2000',
    };
    [a, b, closed] = await Promise.all([
      startService(env),
      startService(env),
      startService({ ...env, PETSTORE_RATE_LIMIT_FAILURE: 'closed' }),
    ]);
    // An instance listens before its cluster client has connected, on a loaded machine seconds before:
    // until then it decides in process, which shares nothing.
    for (const instance of [a, b, closed]) {
      await eventually('the instance connected to the cluster', async () => {
        const ready = (await (await fetch(`${instance.url}/readyz`)).json()) as { checks?: { redis?: string } };
        return ready.checks?.redis === 'up';
      });
    }
  }, 90_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop(), closed?.stop()]);
    inspector?.disconnect();
    await cluster?.stop();
    await temp?.remove();
  });

  /** GET /v1/inventory of one instance with `key`, through the typed client. */
  const get = (instance: ServiceProcess, key: IssuedKey) =>
    createPetstoreClient({ baseUrl: `${instance.url}/v1`, apiKey: key.key }).get('/inventory');

  /** 100 requests at once, alternating between the two fail-open instances; resolves to their statuses. */
  const race = async (key: IssuedKey): Promise<number[]> => {
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => get(i % 2 === 0 ? a : b, key)));
    return answers.map((r) => r.status);
  };

  /** Keys whose state lives on `master`, not used yet by another test (each takes what it needs). */
  const unusedOn = (master: RedisClusterMaster, n: number): IssuedKey[] => {
    const found = keys.filter((k) => k.master === master).slice(0, n);
    if (found.length < n) throw new Error(`fewer than ${n} unused keys on the master of port ${master.port}`);
    for (const k of found) keys.splice(keys.indexOf(k), 1);
    return found;
  };

  it('report Redis up in /readyz', async () => {
    for (const instance of [a, b, closed]) {
      const ready = await fetch(`${instance.url}/readyz`);
      expect(await ready.json()).toEqual({ status: 'ready', checks: { sqlite: 'up', redis: 'up' } });
    }
  });

  it('admit exactly 60 of 100 concurrent requests of one free key spread over two instances', async () => {
    const [key] = unusedOn(cluster.masters[0] as RedisClusterMaster, 1) as [IssuedKey];
    const statuses = await race(key);
    expect(count(statuses, 200)).toBe(60);
    expect(count(statuses, 429)).toBe(40);
  });

  it('fail open or closed as configured while a master is killed under load, and share the limit again once it is back', async () => {
    const victim = cluster.masters[1] as RedisClusterMaster;
    const [loaded, closedKey, ...fresh] = unusedOn(victim, 5) as [IssuedKey, IssuedKey, ...IssuedKey[]];
    const open: number[] = [];
    const failClosed: number[] = [];
    let killed = false;
    const traffic = (async () => {
      for (let i = 0; i < 150; i += 1) {
        open.push((await get(i % 2 === 0 ? a : b, loaded)).status);
        if (killed) failClosed.push((await get(closed, closedKey)).status);
      }
    })();
    await eventually('some traffic before the kill', () => open.length >= 20);
    await victim.kill();
    killed = true;
    await traffic;
    // Fail open: every request answered from the in-process fallback, none refused for the outage.
    expect(open.filter((s) => s >= 500)).toEqual([]);
    expect(open.every((s) => s === 200 || s === 429)).toBe(true);
    // Fail closed: the subjects of the lost master are refused with 503 while it is down.
    expect(failClosed.length).toBeGreaterThan(0);
    expect(failClosed.every((s) => s === 503)).toBe(true);
    const refused = await get(closed, closedKey);
    expect(refused).toMatchObject({ status: 503, error: { code: 'unavailable', status: 503 } });
    expect(refused.headers.get('retry-after')).toBe('1');
    // No instance crashed.
    for (const instance of [a, b, closed]) expect((await fetch(`${instance.url}/livez`)).status).toBe(200);

    await victim.restart();
    await cluster.ready();
    // Each instance probes Redis again after its cool-down; wait until each has written to the master.
    const [warmA, warmB, shared] = fresh as [IssuedKey, IssuedKey, IssuedKey];
    await eventually(
      'every instance deciding through the restarted master again',
      async () => {
        const answers = await Promise.all([get(a, warmA), get(b, warmB), get(closed, closedKey)]);
        const seen = await Promise.all([warmA, warmB, closedKey].map((k) => inspector.exists(`rl:key:${k.id}`)));
        return answers[2].status === 200 && seen.every((n) => n === 1);
      },
      30_000,
    );
    // A key neither fallback has seen: only a limit shared through the cluster holds it to 60 over both.
    const statuses = await race(shared);
    expect(count(statuses, 200)).toBe(60);
    expect(count(statuses, 429)).toBe(40);
  }, 90_000);
});
