import type { RateLimitPolicy } from '../../domain/plan.js';
import type { RateLimitAnswer, RateLimiter } from '../ports/rate-limiter.js';

export interface AdmitRequestInput {
  /** Whose quota the request uses: `key:<id>` for a known key, `ip:<address>` otherwise. */
  readonly subject: string;
  readonly policy: RateLimitPolicy;
}

/** Decides whether one request may proceed under its subject's limits, or answers that none can say now. */
export class AdmitRequest {
  constructor(private readonly limiter: RateLimiter) {}

  execute(input: AdmitRequestInput): Promise<RateLimitAnswer> {
    return this.limiter.admit(input.subject, input.policy);
  }
}
