import type { Next } from 'koa';
import type { Clock } from '../../application/ports/clock.js';
import type { RateLimitAnswer } from '../../application/ports/rate-limiter.js';
import type { AdmitRequest } from '../../application/use-cases/admit-request.js';
import type { Authenticate, Authentication } from '../../application/use-cases/authenticate.js';
import type { GetRateLimit } from '../../application/use-cases/get-rate-limit.js';
import { grants, type Principal } from '../../domain/api-key.js';
import { PLAN_POLICIES, type RateLimitPolicy } from '../../domain/plan.js';
import type { RateLimitDecision } from '../../domain/rate-limit.js';
import { headlineOf } from '../../domain/rate-limit-standing.js';
import { clientOfAddress } from './client-address.js';
import { sendError } from './error-response.js';
import { type HttpContext, type HttpMiddleware, holdHeader, releaseHeldHeaders } from './http-context.js';
import { insufficientScopeChallenge, scopeNeeded } from './operation-scopes.js';
import { fieldLineCount } from './protocol-checks.js';
import { retryAfterSeconds, setRateLimitHeaders } from './rate-limit-headers.js';

/** Told of every request a valid key makes, for its last-use time; must return at once. */
export interface KeyUseSink {
  noted(keyId: string): void;
}

/** The use cases and clock the guard needs. */
export interface ApiGuardDeps {
  readonly authenticate: Authenticate;
  readonly admitRequest: AdmitRequest;
  readonly getRateLimit: GetRateLimit;
  readonly clock: Clock;
  /** Where the uses of keys go; none are recorded when absent. */
  readonly keyUses?: KeyUseSink | undefined;
  /**
   * Whether a route answers this method on this path. Only an operation checks scopes: a request no
   * route takes gets its 404 or 405 whatever its key may do.
   */
  readonly isOperation: (method: string, path: string) => boolean;
  /** The paths of the pages served beside the API (HttpPages), open and limited; none when absent. */
  readonly pagePaths?: ReadonlySet<string> | undefined;
}

/** Everything of the API lives under this segment; nothing outside it is authenticated or limited. */
export const API_BASE_PATH = '/v1';

/** The OpenAPI document: readable without a key (tools fetch it), yet limited like every /v1 request. */
export const OPEN_API_PATHS: ReadonlySet<string> = new Set([`${API_BASE_PATH}/openapi.json`]);

const NO_PAGES: ReadonlySet<string> = new Set();

/** Where a key reads its own limits: answered from a peek at the limiter, never counted. */
export const RATE_LIMIT_PATH = `${API_BASE_PATH}/rate_limit`;

// RFC 6750 `b64token` after the case-insensitive scheme word; Node has already trimmed the value.
const WHITESPACE = /\s/;
const BEARER_WORD = 'bearer';

/**
 * The token of `Bearer <token>` (the scheme word in any case, one space or more, then a token without
 * whitespace to the end), as `/^bearer +(\S+)$/i` captures it, without the match's array: every request
 * with a key reads it.
 */
function bearerToken(header: string): string | undefined {
  const length = BEARER_WORD.length;
  if (header.length < length + 2) return undefined;
  // `| 0x20` folds an ASCII capital to its small letter, and maps no other character to one.
  for (let i = 0; i < length; i++) if ((header.charCodeAt(i) | 0x20) !== BEARER_WORD.charCodeAt(i)) return undefined;
  let start = length;
  while (header.charCodeAt(start) === 0x20) start += 1;
  if (start === length || start === header.length) return undefined;
  const token = header.slice(start);
  return WHITESPACE.test(token) ? undefined : token;
}

/**
 * Whose budget a request without a valid key spends: its client's (an IPv6 address counts by its /64),
 * one for the API and another for the open pages and document, so that a tab calling the API with a
 * dead key, which spends the address's day in minutes, leaves /console and /docs loadable from it.
 */
const keylessSubject = (ip: string, page: boolean): string => `${page ? 'page' : 'ip'}:${clientOfAddress(ip)}`;

const API_PREFIX = `${API_BASE_PATH}/`;

const isApiPath = (path: string): boolean => path.startsWith(API_PREFIX) || path === API_BASE_PATH;

/** Who the request acts as, or why it acts as nobody. */
type Caller = Principal | 'unauthorized' | 'key_expired';

/** Who the authentication's answer says the caller is. */
const callerOfResult = (result: Authentication): Caller => (result.ok ? result.value : result.error.code);

function sendRefusal(ctx: HttpContext, decision: RateLimitDecision, who: string): void {
  const seconds = retryAfterSeconds(decision);
  releaseHeldHeaders(ctx);
  ctx.set('Retry-After', String(seconds));
  if (decision.outcome === 'key_banned') {
    sendError(ctx, 'key_banned', `${who} is banned for repeated requests past its limit; retry after ${seconds} s`);
  } else {
    sendError(ctx, 'rate_limited', `${who} has used up its rate limit; retry after ${seconds} s`);
  }
}

/** Refuses a key the scope of this request's method, with the RFC 6750 challenge; true when it did. */
function refusedScope(ctx: HttpContext, principal: Principal, isOperation: ApiGuardDeps['isOperation']): boolean {
  const scope = scopeNeeded(ctx.method);
  if (grants(principal, scope) || !isOperation(ctx.method, ctx.path)) return false;
  releaseHeldHeaders(ctx);
  ctx.set('WWW-Authenticate', insufficientScopeChallenge(scope));
  sendError(ctx, 'insufficient_scope', `this API key lacks the ${scope} scope this request needs`);
  return true;
}

const UNAUTHORIZED_MESSAGE = 'the API key is missing, invalid or revoked; send Authorization: Bearer <key>';

/** Refuses, once admitted, a request under /v1 that acts as nobody: 401, and why. */
function refuseAsNobody(ctx: HttpContext, caller: Caller, ambiguous: boolean): void {
  if (ambiguous) {
    sendError(ctx, 'unauthorized', 'the request carries more than one Authorization header; send exactly one');
  } else if (caller === 'key_expired') {
    sendError(ctx, 'key_expired', 'the API key has expired; use the key that replaced it, or ask for a new one');
  } else {
    sendError(ctx, 'unauthorized', UNAUTHORIZED_MESSAGE);
  }
}

/**
 * Authenticates and rate-limits every request under /v1, and of the docs page, before routing, so that
 * unknown routes and wrong methods carry the limit headers too. A valid key is limited under its roll
 * chain's subject (an old and a new key of a roll share one) and never by its address; a request
 * without one is limited per client address with the free plan's numbers (so a 401 carries the headers,
 * and the open document and docs page cannot be hammered), the pages and the document under a budget
 * apart from the API's, then refused with 401 (`key_expired` for a key past its expiry) unless its
 * path is open. A key without the scope of the operation's method is refused 403 once admitted,
 * so the refusal counts like any request. GET /v1/rate_limit peeks instead of counting: it answers even
 * while the key's other requests get 429. Two Authorization headers count as no valid key, whatever
 * they hold: a proxy in front that read the other one would disagree about who is calling.
 */
export function apiGuard(deps: ApiGuardDeps): HttpMiddleware {
  const { authenticate, admitRequest, getRateLimit, clock, keyUses, isOperation } = deps;
  const pages = deps.pagePaths ?? NO_PAGES;
  /** What needs no key, yet is limited (per client address, without one): the document and the pages. */
  const isOpenPath = (path: string): boolean => OPEN_API_PATHS.has(path) || pages.has(path);
  /** What the guard limits: the API, and the pages (the docs page's renderer is megabytes a request). */
  const isLimitedPath = (path: string): boolean => isApiPath(path) || pages.has(path);
  /** What follows the limiter's decision: its headers, then a refusal or the rest of the chain. */
  const admitted = (ctx: HttpContext, next: Next, decision: RateLimitAnswer, caller: Caller, ambiguous: boolean) => {
    // No decision, so no rate-limit headers to send: only the Error body.
    if (decision.outcome === 'unavailable') {
      return sendError(ctx, 'unavailable', 'a service this request needs is unavailable; retry shortly');
    }
    setRateLimitHeaders(ctx, decision, clock.nowMs());
    const principal = typeof caller === 'string' ? undefined : caller;
    if (decision.outcome !== 'admitted') {
      return sendRefusal(ctx, decision, principal === undefined ? 'this client address' : 'this API key');
    }
    if (isOpenPath(ctx.path)) return next();
    if (principal !== undefined) return refusedScope(ctx, principal, isOperation) ? undefined : next();
    return refuseAsNobody(ctx, caller, ambiguous);
  };

  /** GET /v1/rate_limit of a key: its standing peeked, not counted; rare enough to await. */
  const readStanding = async (
    ctx: HttpContext,
    next: Next,
    principal: Principal,
    subject: string,
    policy: RateLimitPolicy,
  ) => {
    const standing = await getRateLimit.execute({ subject, policy });
    if ('outcome' in standing) {
      return sendError(ctx, 'unavailable', 'a service this request needs is unavailable; retry shortly');
    }
    setRateLimitHeaders(ctx, headlineOf(standing), clock.nowMs());
    if (refusedScope(ctx, principal, isOperation)) return;
    ctx.state.rateLimit = { principal, standing };
    return next();
  };

  /** Limits the request under its caller's subject, known by now. */
  const limit = (ctx: HttpContext, next: Next, caller: Caller, ambiguous: boolean) => {
    const principal = typeof caller === 'string' ? undefined : caller;
    if (principal !== undefined) {
      ctx.state.keyId = principal.keyId;
      keyUses?.noted(principal.keyId);
    }
    const subject = principal === undefined ? keylessSubject(ctx.ip, isOpenPath(ctx.path)) : principal.limitSubject;
    const policy = principal === undefined ? PLAN_POLICIES.free : principal.policy;
    if (principal !== undefined && ctx.path === RATE_LIMIT_PATH && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      return readStanding(ctx, next, principal, subject, policy);
    }
    return admitRequest
      .execute({ subject, policy })
      .then((decision) => admitted(ctx, next, decision, caller, ambiguous));
  };

  // Not async: a remembered key is authenticated at once, and only the limiter's answer is waited for,
  // by one reaction, with no frame of the guard's kept a request.
  return (ctx, next) => {
    if (!isLimitedPath(ctx.path)) return next();
    // An answer to a request that carries a key is that key's: no cache may keep it, or a browser shows
    // the key's plan or the stock after its sign-out (OWASP REST Security). Set before anything, so
    // refusals and the failures the error middleware answers carry it too.
    if (ctx.req.headers.authorization !== undefined) holdHeader(ctx, 'Cache-Control', 'no-store');
    const ambiguous = (ctx.state.authorizationLines ?? fieldLineCount(ctx.req, 'authorization')) > 1;
    const header = ambiguous ? undefined : ctx.req.headers.authorization;
    const token = header === undefined ? undefined : bearerToken(header);
    if (token === undefined) return limit(ctx, next, 'unauthorized', ambiguous);
    const authentication = authenticate.answer(token);
    // A key the store must read first (or a hasher of promises) is waited for.
    if (authentication instanceof Promise) {
      return authentication.then((result) => limit(ctx, next, callerOfResult(result), ambiguous));
    }
    return limit(ctx, next, callerOfResult(authentication), ambiguous);
  };
}
