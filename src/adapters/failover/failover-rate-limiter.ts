import type { Clock } from '../../application/ports/clock.js';
import type { OutageLogger } from '../../application/ports/outage-logger.js';
import type {
  LocalAnswers,
  RateLimitAnswer,
  RateLimiter,
  RateLimitPeek,
} from '../../application/ports/rate-limiter.js';
import type { RateLimitPolicy } from '../../domain/plan.js';

/** How a FailoverRateLimiter retries its primary and reports its outages. */
export interface FailoverRateLimiterOptions {
  /** How long the primary is left alone after a failure before one request probes it; default 1 s. */
  readonly coolDownMs?: number;
  /** Told once when an outage of the primary begins, and once when it ends. */
  readonly logger?: OutageLogger;
}

/** `closed`: the primary is used; `open`: it is skipped; `half-open`: one request probes it. */
export type CircuitState = 'closed' | 'open' | 'half-open';

/** Where the limiter stands, for /readyz and metrics. Counters run from the start of the process. */
export interface FailoverStatus {
  /** True while the primary answers (the circuit is closed). */
  readonly healthy: boolean;
  readonly circuit: CircuitState;
  /** Calls of the primary that failed (errors, timeouts, and answers that it cannot decide). */
  readonly failures: number;
  /** Decisions the fallback made while the primary could not. */
  readonly fallbackDecisions: number;
  /** Requests the fallback could not decide either (a fail-closed fallback): answered `unavailable`. */
  readonly unavailable: number;
}

/**
 * Puts a circuit breaker in front of a limiter shared by several processes (RedisRateLimiter), so that
 * an outage of its store never fails a request: after a failure the primary is skipped for a cool-down,
 * and the fallback answers instead. A MemoryRateLimiter as the fallback decides in process (fail open);
 * an UnavailableRateLimiter answers `unavailable`, which the HTTP edge turns into a 503 (fail closed).
 * Once the cool-down is over, one request probes the primary; when it answers, it is used again, with
 * no restart. Answers the primary holds in process (bans, see LocalAnswers) are given in every state,
 * so a banned client stays banned through an outage, and such an answer is never taken for a sign that
 * the store is back. Each outage is logged once, when it begins, and once when it ends; the counters
 * tell how much it cost.
 */
export class FailoverRateLimiter implements RateLimiter {
  private readonly coolDownMs: number;
  private readonly logger: OutageLogger | undefined;
  private circuit: CircuitState = 'closed';
  private retryAtMs = 0;
  private failures = 0;
  private fallbackDecisions = 0;
  private unavailable = 0;
  private outage = { sinceMs: 0, failures: 0, fallbackDecisions: 0, unavailable: 0 };

  constructor(
    private readonly primary: RateLimiter & Partial<LocalAnswers>,
    private readonly fallback: RateLimiter,
    private readonly clock: Clock,
    options: FailoverRateLimiterOptions = {},
  ) {
    this.coolDownMs = options.coolDownMs ?? 1_000;
    if (!Number.isInteger(this.coolDownMs) || this.coolDownMs < 0) {
      throw new RangeError('the cool-down must be a whole number of milliseconds');
    }
    this.logger = options.logger;
  }

  async admit(subject: string, policy: RateLimitPolicy): Promise<RateLimitAnswer> {
    const known = this.primary.answerLocally?.(subject, policy);
    if (known !== undefined) return known;
    if (!this.mayCallPrimary()) return this.degraded(subject, policy);
    let answer: RateLimitAnswer;
    try {
      answer = await this.primary.admit(subject, policy);
    } catch (error) {
      this.failed(error);
      return this.degraded(subject, policy);
    }
    if (answer.outcome === 'unavailable') {
      this.failed(new Error(answer.reason));
      return this.degraded(subject, policy);
    }
    this.recovered();
    return answer;
  }

  /**
   * Where a subject stands, read from the primary while it answers, else from the fallback (which then
   * holds the subject's counts). A failed read opens the circuit as a failed decision does.
   */
  async peek(subject: string, policy: RateLimitPolicy): Promise<RateLimitPeek> {
    if (!this.mayCallPrimary()) return this.fallback.peek(subject, policy);
    let answer: RateLimitPeek;
    try {
      answer = await this.primary.peek(subject, policy);
    } catch (error) {
      this.failed(error);
      return this.fallback.peek(subject, policy);
    }
    if ('outcome' in answer) {
      this.failed(new Error(answer.reason));
      return this.fallback.peek(subject, policy);
    }
    this.recovered();
    return answer;
  }

  /** True while the primary answers. */
  healthy(): boolean {
    return this.circuit === 'closed';
  }

  status(): FailoverStatus {
    return {
      healthy: this.healthy(),
      circuit: this.circuit,
      failures: this.failures,
      fallbackDecisions: this.fallbackDecisions,
      unavailable: this.unavailable,
    };
  }

  private mayCallPrimary(): boolean {
    if (this.circuit === 'closed') return true;
    // One probe at a time: the others keep to the fallback until it answers.
    if (this.circuit === 'open' && this.clock.nowMs() >= this.retryAtMs) {
      this.circuit = 'half-open';
      return true;
    }
    return false;
  }

  private failed(error: unknown): void {
    if (this.circuit === 'closed') {
      const { failures, fallbackDecisions, unavailable } = this;
      this.outage = { sinceMs: this.clock.nowMs(), failures, fallbackDecisions, unavailable };
      this.logger?.warn(
        { err: error, coolDownMs: this.coolDownMs },
        'shared rate limiter failed: its fallback answers until it is back',
      );
    }
    this.circuit = 'open';
    this.failures += 1;
    this.retryAtMs = this.clock.nowMs() + this.coolDownMs;
  }

  private recovered(): void {
    if (this.circuit === 'closed') return;
    this.circuit = 'closed';
    this.logger?.info(
      {
        outageMs: this.clock.nowMs() - this.outage.sinceMs,
        failures: this.failures - this.outage.failures,
        fallbackDecisions: this.fallbackDecisions - this.outage.fallbackDecisions,
        unavailable: this.unavailable - this.outage.unavailable,
      },
      'shared rate limiter answers again',
    );
  }

  private async degraded(subject: string, policy: RateLimitPolicy): Promise<RateLimitAnswer> {
    const answer = await this.fallback.admit(subject, policy);
    if (answer.outcome === 'unavailable') this.unavailable += 1;
    else this.fallbackDecisions += 1;
    return answer;
  }
}
