import type { RateLimitPolicy } from '../../domain/plan.js';
import type { RateLimitDecision } from '../../domain/rate-limit.js';
import type { RateLimiter } from '../ports/rate-limiter.js';

export interface AdmitRequestInput {
  /** Whose quota the request uses: `key:<id>` for a known key, `ip:<address>` otherwise. */
  readonly subject: string;
  readonly policy: RateLimitPolicy;
}

/** Decides whether one request may proceed under its subject's limits. */
export class AdmitRequest {
  constructor(private readonly limiter: RateLimiter) {}

  execute(input: AdmitRequestInput): Promise<RateLimitDecision> {
    return this.limiter.admit(input.subject, input.policy);
  }
}
