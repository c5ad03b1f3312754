import type Router from '@koa/router';
import type { Principal } from '../../domain/api-key.js';
import type { RateLimitStanding, WindowStanding } from '../../domain/rate-limit-standing.js';
import { RATE_LIMIT_PATH } from './api-guard.js';
import { type HttpState, type RoutedContext, sendJson } from './http-context.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

// Unix seconds rounded up, as X-RateLimit-Reset: a client that waits until then is never early.
const unixSeconds = (ms: number): number => Math.ceil(ms / 1000);

const windowBody = (w: WindowStanding) => ({
  limit: w.limit,
  remaining: w.remaining,
  reset: unixSeconds(w.resetAtMs),
  used: w.used,
});

/** The body of getRateLimit (DESIGN 4.4): the caller's key, both windows, and a ban's end while one holds. */
export function rateLimitJson(principal: Principal, standing: RateLimitStanding): string {
  const [minute, day] = standing.windows;
  return JSON.stringify({
    key: {
      id: principal.keyId,
      name: principal.name,
      plan: principal.plan,
      scopes: principal.scopes,
      expiresAt: iso(principal.expiresAtMs),
    },
    limits: { minute: windowBody(minute), day: windowBody(day) },
    ...(standing.bannedUntilMs === null ? {} : { bannedUntil: unixSeconds(standing.bannedUntilMs) }),
  });
}

/** getRateLimit: the guard has read the standing (never counted) and left it on the state. */
export function addRateLimitRoute(router: Router<HttpState, RoutedContext>): void {
  router.get(RATE_LIMIT_PATH, (ctx) => {
    const read = ctx.state.rateLimit;
    // The guard reads the standing of every authenticated GET of this path before routing.
    if (read === undefined) throw new Error('GET /v1/rate_limit reached its route without the guard');
    sendJson(ctx, rateLimitJson(read.principal, read.standing));
  });
}
