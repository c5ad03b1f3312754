import type { Clock } from '../../application/ports/clock.js';
import type { AdmitRequest } from '../../application/use-cases/admit-request.js';
import type { Authenticate } from '../../application/use-cases/authenticate.js';
import type { Principal } from '../../domain/api-key.js';
import { PLAN_POLICIES } from '../../domain/plan.js';
import type { RateLimitDecision } from '../../domain/rate-limit.js';
import { DOCS_PATHS } from './docs-page.js';
import { sendError } from './error-response.js';
import type { HttpContext, HttpMiddleware } from './http-context.js';
import { fieldLineCount } from './protocol-checks.js';
import { retryAfterSeconds, setRateLimitHeaders } from './rate-limit-headers.js';

/** The use cases and clock the guard needs. */
export interface ApiGuardDeps {
  readonly authenticate: Authenticate;
  readonly admitRequest: AdmitRequest;
  readonly clock: Clock;
}

/** Everything of the API lives under this segment; nothing outside it is authenticated or limited. */
export const API_BASE_PATH = '/v1';

/** The OpenAPI document: readable without a key (tools fetch it), yet limited like every /v1 request. */
export const OPEN_API_PATHS: ReadonlySet<string> = new Set([`${API_BASE_PATH}/openapi.json`]);

/** What needs no key, yet is limited (per client address, without one): the document and the docs page. */
const isOpenPath = (path: string): boolean => OPEN_API_PATHS.has(path) || DOCS_PATHS.has(path);

// RFC 6750 `b64token` after the case-insensitive scheme word; Node has already trimmed the value.
const BEARER = /^bearer +(\S+)$/i;

const isApiPath = (path: string): boolean => path.startsWith(`${API_BASE_PATH}/`) || path === API_BASE_PATH;

/** What the guard limits: the API, and the docs page, whose renderer is megabytes a request. */
const isLimitedPath = (path: string): boolean => isApiPath(path) || DOCS_PATHS.has(path);

async function principalOf(authenticate: Authenticate, header: string | undefined): Promise<Principal | undefined> {
  const token = header === undefined ? undefined : BEARER.exec(header)?.[1];
  if (token === undefined) return undefined;
  const result = await authenticate.execute({ apiKey: token });
  return result.ok ? result.value : undefined;
}

function sendRefusal(ctx: HttpContext, decision: RateLimitDecision, who: string): void {
  const seconds = retryAfterSeconds(decision);
  ctx.set('Retry-After', String(seconds));
  if (decision.outcome === 'key_banned') {
    sendError(ctx, 'key_banned', `${who} is banned for repeated requests past its limit; retry after ${seconds} s`);
  } else {
    sendError(ctx, 'rate_limited', `${who} has used up its rate limit; retry after ${seconds} s`);
  }
}

/**
 * Authenticates and rate-limits every request under /v1, and of the docs page, before routing, so that
 * unknown routes and wrong methods carry the limit headers too. A valid key is limited under its own
 * policy and never by its address; a request without one is limited per client address with the free
 * plan's numbers (so a 401 carries the headers, and the open document and docs page cannot be
 * hammered), then refused with 401 unless its path is open. Two Authorization headers count as no valid key, whatever they hold: a proxy in
 * front that read the other one would disagree about who is calling.
 */
export function apiGuard(deps: ApiGuardDeps): HttpMiddleware {
  const { authenticate, admitRequest, clock } = deps;
  return async (ctx, next) => {
    if (!isLimitedPath(ctx.path)) return next();
    const ambiguous = fieldLineCount(ctx.req, 'authorization') > 1;
    const principal = ambiguous ? undefined : await principalOf(authenticate, ctx.req.headers.authorization);
    const subject = principal === undefined ? `ip:${ctx.ip}` : `key:${principal.keyId}`;
    const policy = principal === undefined ? PLAN_POLICIES.free : principal.policy;
    const decision = await admitRequest.execute({ subject, policy });
    // No decision, so no rate-limit headers to send: only the Error body.
    if (decision.outcome === 'unavailable') {
      return sendError(ctx, 'unavailable', 'a service this request needs is unavailable; retry shortly');
    }
    setRateLimitHeaders(ctx, decision, clock.nowMs());
    if (principal !== undefined) ctx.state.keyId = principal.keyId;
    if (decision.outcome !== 'admitted') {
      return sendRefusal(ctx, decision, principal === undefined ? 'this client address' : 'this API key');
    }
    if (principal !== undefined || isOpenPath(ctx.path)) return next();
    sendError(
      ctx,
      'unauthorized',
      ambiguous
        ? 'the request carries more than one Authorization header; send exactly one'
        : 'the API key is missing, invalid or revoked; send Authorization: Bearer <key>',
    );
  };
}
