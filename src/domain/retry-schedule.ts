/** When a failed delivery is tried again, and for how long. */
export interface RetrySchedule {
  /** The wait after the first failure; each further failure doubles it. */
  readonly firstDelayMs: number;
  /** The longest wait between two attempts. */
  readonly maxDelayMs: number;
  /** How long after its event a delivery is retried; and how long an endpoint may fail before it is disabled. */
  readonly windowMs: number;
}

/** 5 s, doubling to at most an hour, for 24 hours: about 30 attempts. */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = {
  firstDelayMs: 5_000,
  maxDelayMs: 3_600_000,
  windowMs: 86_400_000,
};

/**
 * The wait after the `failures`-th failed attempt (1 for the first): exponential, capped, with "equal
 * jitter": half the step fixed, half drawn from `random` (0 to 1), so that endpoints that failed
 * together do not all come back in the same second, and no wait shrinks below half its step.
 */
export function retryDelayMs(failures: number, random: number, schedule: RetrySchedule): number {
  const step = Math.min(schedule.maxDelayMs, schedule.firstDelayMs * 2 ** Math.min(Math.max(failures - 1, 0), 40));
  return Math.round(step / 2 + (random * step) / 2);
}

/** What becomes of a delivery and its endpoint after one attempt. */
export interface AttemptVerdict {
  readonly delivered: boolean;
  /** When to try again; null when delivered or given up. */
  readonly nextAttemptMs: number | null;
  /** True when the endpoint has failed for the whole window: it is disabled. */
  readonly disableEndpoint: boolean;
}

/**
 * The verdict of an attempt at `atMs`: a 2xx delivers; any other answer (or none) is tried again after
 * `retryDelayMs`, unless the delivery is older than the window (given up) or the endpoint has failed
 * since `failingSinceMs` for the whole window (disabled; its deliveries wait for `webhooks enable`).
 */
export function verdictOf(
  attempt: { readonly ok: boolean; readonly atMs: number; readonly failures: number; readonly random: number },
  delivery: { readonly createdAtMs: number; readonly failingSinceMs: number | null },
  schedule: RetrySchedule,
): AttemptVerdict {
  if (attempt.ok) return { delivered: true, nextAttemptMs: null, disableEndpoint: false };
  const failingSince = delivery.failingSinceMs ?? attempt.atMs;
  const disableEndpoint = attempt.atMs - failingSince >= schedule.windowMs;
  const next = attempt.atMs + retryDelayMs(attempt.failures, attempt.random, schedule);
  const givenUp = next - delivery.createdAtMs > schedule.windowMs;
  return { delivered: false, nextAttemptMs: givenUp ? null : next, disableEndpoint };
}
