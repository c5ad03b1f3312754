import type { RateLimiter, RateLimiterUnavailable } from '../../application/ports/rate-limiter.js';

const UNAVAILABLE: RateLimiterUnavailable = {
  outcome: 'unavailable',
  reason: 'the shared rate limiter is down and this process does not decide without it (fail closed)',
};

/**
 * A limiter that never decides: every answer is `unavailable`. The fallback of a FailoverRateLimiter
 * that fails closed, so that while the shared limiter is down requests get a 503 instead of limits that
 * each process would keep on its own.
 */
export class UnavailableRateLimiter implements RateLimiter {
  async admit(): Promise<RateLimiterUnavailable> {
    return UNAVAILABLE;
  }

  async peek(): Promise<RateLimiterUnavailable> {
    return UNAVAILABLE;
  }
}
