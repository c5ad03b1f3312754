import { Redis } from 'ioredis';
import type { OutageLogger } from '../shared/outage-logger.js';

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

/** Resolves once `client` is connected and ready, or rejects after `timeoutMs`. */
export async function whenReady(client: Redis, timeoutMs: number): Promise<void> {
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
