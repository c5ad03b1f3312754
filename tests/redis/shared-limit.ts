import { expect } from 'vitest';
import type { RedisRateLimiter } from '../../src/adapters/redis/redis-rate-limiter.js';
import { PLAN_POLICIES } from '../../src/domain/plan.js';

/**
 * Asks for 100 decisions of one free subject at once, alternating between `limiters` (on connections
 * of their own), and checks that exactly the plan's 60 are admitted, each having seen its own count.
 */
export async function expectSixtyOfHundredAdmitted(limiters: readonly RedisRateLimiter[]): Promise<void> {
  const decisions = await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      (limiters[i % limiters.length] as RedisRateLimiter).admit('key:shared', PLAN_POLICIES.free),
    ),
  );
  const admitted = decisions.filter((d) => d.outcome === 'admitted');
  expect(admitted).toHaveLength(60);
  // No two read the same state.
  expect(new Set(admitted.map((d) => d.remaining))).toEqual(new Set(Array.from({ length: 60 }, (_, i) => i)));
}
