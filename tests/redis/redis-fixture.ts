import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { createRedisClient, type RedisClientOptions, whenReady } from '../../src/adapters/redis/redis-client.js';
import { type RedisServer, redisServerAvailable, startRedisServer } from '../../support/redis-server.js';

/** False when redis-server is missing outside CI: the suites are then skipped (CI=true throws instead). */
export const hasRedisServer = redisServerAvailable();

/** A key prefix no other fixture uses, so that subjects never leak between tests. */
export const freshPrefix = (): string => `t-${randomUUID()}:`;

export interface RedisTestbed {
  readonly server: () => RedisServer;
  /**
   * A ready client with the production options, closed after the file's tests. Its command timeout is
   * 2 s unless given: the production 100 ms is about a failing Redis, and a loaded test machine would
   * trip it on a healthy one.
   */
  client(options?: RedisClientOptions): Promise<Redis>;
}

/**
 * Starts a real redis-server for the tests of the enclosing describe and stops it afterwards, with the
 * clients made meanwhile. Call it inside a `describe.skipIf(!hasRedisServer)`.
 */
export function useRedisServer(): RedisTestbed {
  let server: RedisServer | undefined;
  const clients: Redis[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await server?.stop();
  });
  const current = (): RedisServer => {
    if (server === undefined) throw new Error('the Redis server starts in beforeAll');
    return server;
  };
  return {
    server: current,
    async client(options) {
      const client = createRedisClient(current().url, { commandTimeoutMs: 2_000, ...options });
      clients.push(client);
      await whenReady(client, 5_000);
      return client;
    },
  };
}

/** Polls `condition` until it holds, failing with `what` after `withinMs`: for states a server reaches in its own time. */
export async function eventually(
  what: string,
  condition: () => Promise<boolean> | boolean,
  withinMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    await delay(25);
  }
}
