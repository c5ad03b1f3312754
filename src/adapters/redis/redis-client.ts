import { Cluster, Redis } from 'ioredis';
import type { OutageLogger } from '../../application/ports/outage-logger.js';

export interface RedisClientOptions {
  /** How long one command may take before it fails and the fallback decides; default 100 ms. */
  readonly commandTimeoutMs?: number;
  /** How long one connection attempt may take; default 1,000 ms. */
  readonly connectTimeoutMs?: number;
  /** Told once when the connection is lost, and once when it is back. */
  readonly logger?: OutageLogger;
}

/**
 * Makes the ioredis client of the rate limiter from a URL (`redis://host:port/db`). It connects at once
 * and reconnects for ever. The options make a Redis failure quick and visible instead of slow: a
 * request is decided within the command timeout, by Redis or, through FailoverRateLimiter, without it.
 */
export function createRedisClient(url: string, options: RedisClientOptions = {}): Redis {
  const client = new Redis(url, {
    // While disconnected a command fails at once rather than waiting in a queue while requests pile up.
    enableOfflineQueue: false,
    commandTimeout: options.commandTimeoutMs ?? 100,
    connectTimeout: options.connectTimeoutMs ?? 1_000,
    // Commands in flight when the connection drops fail at once, and are never sent again after a
    // reconnect: their requests were already decided by the fallback, and a resent script would count
    // them a second time.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    // Reconnect at most a second apart, so that Redis is used again soon after it returns.
    retryStrategy: (attempt: number) => Math.min(attempt * 100, 1_000),
  });
  // Without a listener ioredis prints every failed reconnect; an outage is worth two lines, not hundreds.
  let lost = false;
  client.on('error', (error: Error) => {
    if (lost) return;
    lost = true;
    options.logger?.warn({ err: error }, 'redis connection lost');
  });
  client.on('ready', () => {
    if (!lost) return;
    lost = false;
    options.logger?.info({}, 'redis connection restored');
  });
  return client;
}

/** A master of a Redis Cluster to learn the cluster from; the others are found through it. */
export interface RedisClusterNode {
  readonly host: string;
  readonly port: number;
}

/**
 * Makes the ioredis client of the rate limiter on a Redis Cluster, from some of its masters' addresses,
 * with the same promises as createRedisClient: a failure is quick, and a command is sent at most once.
 * It follows MOVED and ASK redirections (a slot moved to another master: the script has not run), and
 * learns the slots again every 5 s and on each redirection.
 */
export function createRedisClusterClient(
  nodes: readonly RedisClusterNode[],
  options: RedisClientOptions = {},
): Cluster {
  const client = new Cluster(
    nodes.map(({ host, port }) => ({ host, port })),
    {
      enableOfflineQueue: false,
      redisOptions: {
        commandTimeout: options.commandTimeoutMs ?? 100,
        connectTimeout: options.connectTimeoutMs ?? 1_000,
        maxRetriesPerRequest: 0,
        autoResendUnfulfilledCommands: false,
      },
      // No resend after a lost connection (the script may have run before it dropped, and would count
      // its decisions twice) nor after CLUSTERDOWN: the fallback decides at once instead.
      retryDelayOnFailover: 0,
      retryDelayOnClusterDown: 0,
      // When every master is lost, try them again at most a second apart.
      clusterRetryStrategy: (attempt: number) => Math.min(attempt * 100, 1_000),
    },
  );
  // Without listeners an 'error' event would end the process; an outage is worth two lines a master.
  const lost = new Set<string>();
  client.on('error', (error: Error) => {
    if (lost.has('cluster')) return;
    lost.add('cluster');
    options.logger?.warn({ err: error }, 'redis cluster unreachable');
  });
  client.on('ready', () => {
    if (lost.delete('cluster')) options.logger?.info({}, 'redis cluster reachable again');
  });
  client.on('node error', (error: Error, node: string) => {
    if (lost.has(node)) return;
    lost.add(node);
    options.logger?.warn({ err: error, node }, 'redis cluster node unreachable');
  });
  // ioredis opens a new connection to a master it lost when a command or a slot refresh needs it.
  client.on('+node', (connection: Redis) => {
    const node = `${connection.options.host}:${connection.options.port}`;
    connection.once('ready', () => {
      if (lost.delete(node)) options.logger?.info({ node }, 'redis cluster node reachable again');
    });
  });
  return client;
}

/** Resolves once `client` is connected and ready, or rejects after `timeoutMs`. */
export async function whenReady(client: Redis | Cluster, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      reject(new Error(`redis was not ready within ${timeoutMs} ms (status ${client.status})`));
    }, timeoutMs);
    const onReady = (): void => {
      clearTimeout(timer);
      resolve();
    };
    client.once('ready', onReady);
  });
}
