import type { RateLimitPolicy } from '../../domain/plan.js';
import type { RateLimitDecision } from '../../domain/rate-limit.js';

/** Decides whether a subject (an API key id, or a client address) may make one more request. */
export interface RateLimiter {
  /**
   * Decides one request of `subject` under `policy`, counting it when it is admitted. Limits are
   * passed on every call, so a plan change takes effect at once.
   */
  admit(subject: string, policy: RateLimitPolicy): Promise<RateLimitDecision>;
}
