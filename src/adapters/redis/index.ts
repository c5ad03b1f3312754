/**
 * The rate limiter shared through Redis, and its clients: `petstore-inventory/redis`. Needs `ioredis`
 * (`npm install ioredis`); without it, importing this subpath throws a MissingPeerError that says so.
 * Put the limiter behind the core's FailoverRateLimiter to fail open or closed when Redis is down.
 *
 * @packageDocumentation
 */
import { requirePeers } from '../shared/peer-packages.js';

export type { RedisClientOptions, RedisClusterNode } from './redis-client.js';
export type { RedisRateLimiterOptions } from './redis-rate-limiter.js';

await requirePeers('petstore-inventory/redis', ['ioredis']);
const [client, limiter] = await Promise.all([import('./redis-client.js'), import('./redis-rate-limiter.js')]);

/** The sliding-window rate limiter over Redis (or a Redis Cluster), every decision in one script call. */
export const RedisRateLimiter = limiter.RedisRateLimiter;
export type RedisRateLimiter = import('./redis-rate-limiter.js').RedisRateLimiter;
/** An ioredis client for the limiter from a URL: quick to fail, each command sent at most once. */
export const createRedisClient = client.createRedisClient;
/** An ioredis Cluster client for the limiter, with the same promises as createRedisClient. */
export const createRedisClusterClient = client.createRedisClusterClient;
