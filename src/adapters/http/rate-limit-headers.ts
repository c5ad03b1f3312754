import { nearestExhaustion, type RateLimitDecision, type WindowReport } from '../../domain/rate-limit.js';
import { type HttpContext, holdHeader } from './http-context.js';

const secondsUntil = (atMs: number, nowMs: number): number => Math.max(0, Math.ceil((atMs - nowMs) / 1000));

/** IETF draft `RateLimit-Policy`: every window that binds, e.g. `"minute";q=60;w=60, "day";q=1000;w=86400`. */
function policyField(windows: readonly WindowReport[]): string {
  let out = '';
  for (const w of windows) {
    if (out !== '') out += ', ';
    out += `"${w.name}";q=${w.limit};w=${w.windowSeconds}`;
  }
  return out;
}

/**
 * The windows the last `RateLimit-Policy` was written for, and the field: a subject's windows change
 * only with its plan, so nearly every request of a busy key would build the same string again.
 */
let lastPolicy: { readonly windows: readonly WindowReport[]; readonly field: string } | undefined;

/** Whether two lists of windows write the same `RateLimit-Policy`. */
function samePolicy(a: readonly WindowReport[], b: readonly WindowReport[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] as WindowReport;
    const y = b[i] as WindowReport;
    if (x.name !== y.name || x.limit !== y.limit || x.windowSeconds !== y.windowSeconds) return false;
  }
  return true;
}

function cachedPolicyField(windows: readonly WindowReport[]): string {
  if (lastPolicy === undefined || !samePolicy(lastPolicy.windows, windows)) {
    lastPolicy = { windows, field: policyField(windows) };
  }
  return lastPolicy.field;
}

/**
 * Writes the limit headers of a decision: the classic X-RateLimit-* trio (of the window nearest
 * exhaustion, Reset in Unix seconds rounded up so a client that waits until then is never early) and
 * the IETF draft `RateLimit-Policy` and `RateLimit` fields, whose `t` is a delta in seconds. They are
 * held with the answer's other common headers (holdHeader), set when the answer is written.
 */
export function setRateLimitHeaders(ctx: HttpContext, decision: RateLimitDecision, nowMs: number): void {
  holdHeader(ctx, 'X-RateLimit-Limit', String(decision.limit));
  holdHeader(ctx, 'X-RateLimit-Remaining', String(decision.remaining));
  holdHeader(ctx, 'X-RateLimit-Reset', String(Math.ceil(decision.resetAtMs / 1000)));
  holdHeader(ctx, 'RateLimit-Policy', cachedPolicyField(decision.windows));
  const watched = nearestExhaustion(decision.windows).name;
  holdHeader(ctx, 'RateLimit', `"${watched}";r=${decision.remaining};t=${secondsUntil(decision.resetAtMs, nowMs)}`);
}

/** Whole seconds until a refused request may be retried; at least 1, so a client never retries at once. */
export const retryAfterSeconds = (decision: RateLimitDecision): number =>
  Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
