import type { RateLimitPolicy } from '../../domain/plan.js';
import type { RateLimiter, RateLimitPeek } from '../ports/rate-limiter.js';

export interface GetRateLimitInput {
  /** Whose standing: the subject the caller's requests count under. */
  readonly subject: string;
  readonly policy: RateLimitPolicy;
}

/** Where a subject stands under its limits, counting nothing: a client may ask as often as it likes. */
export class GetRateLimit {
  constructor(private readonly limiter: RateLimiter) {}

  execute(input: GetRateLimitInput): Promise<RateLimitPeek> {
    return this.limiter.peek(input.subject, input.policy);
  }
}
