import type { Redis } from 'ioredis';
import { afterEach, beforeAll, beforeEach, describe, it } from 'vitest';
import { RedisRateLimiter } from '../../src/adapters/redis/redis-rate-limiter.js';
import { describeRateLimiterContract } from '../../src/testing/index.js';
import { freshPrefix, hasRedisServer, useRedisServer } from './redis-fixture.js';

describe.skipIf(!hasRedisServer)('RedisRateLimiter on a real redis-server', () => {
  const redis = useRedisServer();
  let client: Redis;
  beforeAll(async () => {
    client = await redis.client();
  });

  // The contract drives time with a ManualClock; the limiter passes it to the script instead of TIME.
  describeRateLimiterContract(
    'redis',
    async (clock, banPolicy) => ({
      limiter: new RedisRateLimiter(client, clock, { keyPrefix: freshPrefix(), banPolicy, timeFrom: 'clock' }),
      close: async () => {},
    }),
    { describe, it, beforeEach, afterEach },
  );
});
