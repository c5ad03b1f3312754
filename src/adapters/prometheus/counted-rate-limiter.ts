import type { RateLimitAnswer, RateLimiter } from '../../application/ports/rate-limiter.js';
import type { RateLimitPolicy } from '../../domain/plan.js';
import type { RateLimitDecision, RateLimitOutcome } from '../../domain/rate-limit.js';

/** Which limiter decided: the in-process one alone, the Redis one, or the in-process fallback of Redis. */
export type LimiterRole = 'memory' | 'redis' | 'fallback';

/** The outcome label of a decision. */
export type DecisionLabel = 'admitted' | 'limited' | 'banned';

const LABELS: Readonly<Record<RateLimitOutcome, DecisionLabel>> = {
  admitted: 'admitted',
  rate_limited: 'limited',
  key_banned: 'banned',
};

/**
 * A limiter, and what a shared one may answer from its own memory without a round trip (a ban held in
 * process). The failover limiter asks for the latter first, so a wrapper must keep it.
 */
export interface CountableLimiter extends RateLimiter {
  answerLocally?(subject: string, policy: RateLimitPolicy): RateLimitDecision | undefined;
  /** The decision of `admit` made at once, without a promise: the in-process limiter's (MemoryRateLimiter). */
  admitNow?(subject: string, policy: RateLimitPolicy): RateLimitDecision;
}

/** Counts decisions; told the outcome label of each. */
export type DecisionCounter = (label: DecisionLabel) => void;

/**
 * Counts every decision of `limiter` by outcome, local answers included, and otherwise behaves as it
 * does. An answer that it cannot decide now is no decision and is not counted here (a failover limiter
 * counts those), nor is a peek. A limiter without local answers gets a wrapper without them, so a caller that checks
 * for the method sees what it would have seen.
 */
export function countedRateLimiter(limiter: CountableLimiter, count: DecisionCounter): CountableLimiter {
  const counted = <A extends RateLimitAnswer>(answer: A): A => {
    if (answer.outcome !== 'unavailable') count(LABELS[answer.outcome]);
    return answer;
  };
  // Every request is admitted here: an in-process limiter's decision is counted as it is made and
  // handed back in one settled promise, where awaiting its own promise cost an async frame and a second
  // promise a request; any other limiter's is counted as its promise settles.
  const now = limiter.admitNow?.bind(limiter);
  const admit: CountableLimiter['admit'] =
    now === undefined
      ? (subject, policy) => limiter.admit(subject, policy).then(counted)
      : (subject, policy) => {
          try {
            return Promise.resolve(counted(now(subject, policy)));
          } catch (error) {
            return Promise.reject(error);
          }
        };
  // A peek decides nothing, so it is not counted.
  const peek = limiter.peek.bind(limiter);
  const local = limiter.answerLocally?.bind(limiter);
  if (local === undefined) return { admit, peek };
  return {
    admit,
    peek,
    answerLocally: (subject, policy) => {
      const decision = local(subject, policy);
      return decision === undefined ? undefined : counted(decision);
    },
  };
}
