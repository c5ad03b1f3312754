import type { RateLimiter } from '../../application/ports/rate-limiter.js';
import type { RateLimitPolicy } from '../../domain/plan.js';
import type { RateLimitDecision } from '../../domain/rate-limit.js';

/** The little of a logger the limiter needs; a pino logger fits it. */
export interface RateLimiterLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** A shared limiter that can answer some requests from its own memory, without its store. */
export interface LocalAnswers {
  /** The decision for `subject` if it needs no round trip (a ban held in process), else undefined. */
  answerLocally(subject: string, policy: RateLimitPolicy): RateLimitDecision | undefined;
}

/** Thrown by a fail-closed limiter while the shared limiter cannot decide; the HTTP edge answers 503. */
export class RateLimiterUnavailableError extends Error {
  readonly code = 'unavailable';

  constructor(options?: { readonly cause?: unknown }) {
    super('the shared rate limiter is unavailable', options);
    this.name = 'RateLimiterUnavailableError';
  }
}

/** What to do while the shared limiter fails: decide in process ('open'), or refuse to decide ('closed'). */
export type FailureMode = 'open' | 'closed';

export type FailoverRateLimiterOptions = {
  /** How long the shared limiter is left alone after a failure before one request probes it; default 1 s. */
  readonly coolDownMs?: number;
  readonly logger?: RateLimiterLogger;
  /** The clock of the cool-down and of the outage log, in Unix ms; default Date.now. */
  readonly now?: () => number;
} & (
  | {
      readonly mode?: 'open' /** Decides while the shared limiter cannot, e.g. a MemoryRateLimiter. */;
      readonly fallback: RateLimiter;
    }
  | { readonly mode: 'closed' }
);

/** `closed`: the shared limiter is used; `open`: it is skipped; `half-open`: one request probes it. */
export type CircuitState = 'closed' | 'open' | 'half-open';

/** Where the limiter stands, for /readyz and metrics. Counters run from the start of the process. */
export interface FailoverStatus {
  /** True while the shared limiter answers (the circuit is closed). */
  readonly healthy: boolean;
  readonly circuit: CircuitState;
  readonly mode: FailureMode;
  /** Calls of the shared limiter that failed (errors and timeouts). */
  readonly failures: number;
  /** Decisions the fallback made in fail-open mode. */
  readonly fallbackDecisions: number;
  /** Requests refused with RateLimiterUnavailableError in fail-closed mode. */
  readonly unavailable: number;
}

/**
 * Puts a circuit breaker in front of a shared limiter (RedisRateLimiter), so that a Redis outage never
 * fails a request that the limits would admit: after a failure the shared limiter is skipped for a
 * cool-down, and decisions come from the fallback (fail-open) or are refused with
 * RateLimiterUnavailableError (fail-closed). Once the cool-down is over, one request probes the shared
 * limiter; when it answers, it is used again, with no restart. Answers the shared limiter holds in
 * process (bans, see LocalAnswers) are given in every state, so a banned client stays banned through an
 * outage, and such an answer is never taken for a sign that Redis is back. Each outage is logged once, when it
 * begins, and once when it ends; the counters tell how much it cost.
 */
export class FailoverRateLimiter implements RateLimiter {
  private readonly mode: FailureMode;
  private readonly fallback: RateLimiter | undefined;
  private readonly coolDownMs: number;
  private readonly logger: RateLimiterLogger | undefined;
  private readonly now: () => number;
  private circuit: CircuitState = 'closed';
  private retryAtMs = 0;
  private lastError: unknown;
  private failures = 0;
  private fallbackDecisions = 0;
  private unavailable = 0;
  private outage = { sinceMs: 0, failures: 0, fallbackDecisions: 0 };

  constructor(
    private readonly primary: RateLimiter & Partial<LocalAnswers>,
    options: FailoverRateLimiterOptions,
  ) {
    this.mode = options.mode ?? 'open';
    this.fallback = options.mode === 'closed' ? undefined : options.fallback;
    this.coolDownMs = options.coolDownMs ?? 1_000;
    if (!Number.isInteger(this.coolDownMs) || this.coolDownMs < 0) {
      throw new RangeError('the cool-down must be a whole number of milliseconds');
    }
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
  }

  async admit(subject: string, policy: RateLimitPolicy): Promise<RateLimitDecision> {
    const known = this.primary.answerLocally?.(subject, policy);
    if (known !== undefined) return known;
    if (!this.mayCallPrimary()) return this.degraded(subject, policy, this.lastError);
    let answer: RateLimitDecision;
    try {
      answer = await this.primary.admit(subject, policy);
    } catch (error) {
      this.failed(error);
      return this.degraded(subject, policy, error);
    }
    this.recovered();
    return answer;
  }

  /** True while the shared limiter answers. */
  healthy(): boolean {
    return this.circuit === 'closed';
  }

  status(): FailoverStatus {
    return {
      healthy: this.healthy(),
      circuit: this.circuit,
      mode: this.mode,
      failures: this.failures,
      fallbackDecisions: this.fallbackDecisions,
      unavailable: this.unavailable,
    };
  }

  private mayCallPrimary(): boolean {
    if (this.circuit === 'closed') return true;
    // One probe at a time: the others keep to the fallback until it answers.
    if (this.circuit === 'open' && this.now() >= this.retryAtMs) {
      this.circuit = 'half-open';
      return true;
    }
    return false;
  }

  private failed(error: unknown): void {
    if (this.circuit === 'closed') {
      this.outage = { sinceMs: this.now(), failures: this.failures, fallbackDecisions: this.fallbackDecisions };
      this.logger?.warn(
        { err: error, mode: this.mode, coolDownMs: this.coolDownMs },
        this.mode === 'open'
          ? 'shared rate limiter failed: deciding in process until it answers'
          : 'shared rate limiter failed: refusing requests until it answers',
      );
    }
    this.circuit = 'open';
    this.failures += 1;
    this.lastError = error;
    this.retryAtMs = this.now() + this.coolDownMs;
  }

  private recovered(): void {
    if (this.circuit === 'closed') return;
    this.circuit = 'closed';
    this.logger?.info(
      {
        outageMs: this.now() - this.outage.sinceMs,
        failures: this.failures - this.outage.failures,
        fallbackDecisions: this.fallbackDecisions - this.outage.fallbackDecisions,
      },
      'shared rate limiter answers again',
    );
  }

  private async degraded(subject: string, policy: RateLimitPolicy, cause: unknown): Promise<RateLimitDecision> {
    if (this.fallback === undefined) {
      this.unavailable += 1;
      throw new RateLimiterUnavailableError({ cause });
    }
    this.fallbackDecisions += 1;
    return this.fallback.admit(subject, policy);
  }
}
