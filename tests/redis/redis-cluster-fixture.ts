import type { Cluster } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { createRedisClusterClient, type RedisClientOptions, whenReady } from '../../src/adapters/redis/redis-client.js';
import { type RedisCluster, redisClusterAvailable, startRedisCluster } from '../../support/redis-cluster.js';

/** False when redis-server or redis-cli is missing outside CI: the suites are then skipped (CI=true throws instead). */
export const hasRedisCluster = redisClusterAvailable();

export interface RedisClusterTestbed {
  readonly cluster: () => RedisCluster;
  /** A ready Cluster client with the production options (command timeout 2 s unless given), closed after the file's tests. */
  client(options?: RedisClientOptions): Promise<Cluster>;
}

/**
 * Starts a real Redis Cluster of three masters for the tests of the enclosing describe and stops it
 * afterwards, with the clients made meanwhile. Call it inside a `describe.skipIf(!hasRedisCluster)`.
 */
export function useRedisCluster(): RedisClusterTestbed {
  let cluster: RedisCluster | undefined;
  const clients: Cluster[] = [];
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await cluster?.stop();
  });
  const current = (): RedisCluster => {
    if (cluster === undefined) throw new Error('the Redis Cluster starts in beforeAll');
    return cluster;
  };
  return {
    cluster: current,
    async client(options) {
      const client = createRedisClusterClient(current().nodes, { commandTimeoutMs: 2_000, ...options });
      clients.push(client);
      await whenReady(client, 10_000);
      return client;
    },
  };
}
