import type { RateLimitPolicy } from '../../domain/plan.js';
import type { RateLimitDecision } from '../../domain/rate-limit.js';
import type { RateLimitStanding } from '../../domain/rate-limit-standing.js';

/**
 * A limiter's answer when it cannot decide now: the store it shares with other processes is down and
 * it is set not to decide without it (fail closed). It is no decision: the request is neither admitted
 * nor refused, nothing is counted, and no window can be reported. The HTTP edge answers 503
 * `unavailable`; the client retries shortly.
 */
export interface RateLimiterUnavailable {
  readonly outcome: 'unavailable';
  /** Why, for the operator's log; never sent to a client. */
  readonly reason: string;
}

/** What a limiter answers: a decision, or that it cannot decide now. */
export type RateLimitAnswer = RateLimitDecision | RateLimiterUnavailable;

/** What a limiter answers when asked where a subject stands: the standing, or that it cannot read it now. */
export type RateLimitPeek = RateLimitStanding | RateLimiterUnavailable;

/** Decides whether a subject (an API key id, or a client address) may make one more request. */
export interface RateLimiter {
  /**
   * Decides one request of `subject` under `policy`, counting it when it is admitted. Limits are
   * passed on every call, so a plan change takes effect at once. A limiter that cannot decide for now
   * answers `unavailable` (an expected state of a fail-closed limiter, not a bug); any other failure
   * throws.
   */
  admit(subject: string, policy: RateLimitPolicy): Promise<RateLimitAnswer>;

  /**
   * Where `subject` stands under `policy` now, counting nothing: no quota used, no strike towards a
   * ban, and an answer even while the subject is banned or out of quota. A subject never seen stands
   * with nothing used. `unavailable` and failures as for `admit`.
   */
  peek(subject: string, policy: RateLimitPolicy): Promise<RateLimitPeek>;
}

/** A shared limiter that can answer some requests from its own memory, without its store. */
export interface LocalAnswers {
  /** The decision for `subject` if it needs no round trip (a ban held in process), else undefined. */
  answerLocally(subject: string, policy: RateLimitPolicy): RateLimitDecision | undefined;
}
