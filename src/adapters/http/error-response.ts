import { ERROR_STATUS, type ErrorCode } from './error-table.js';
import { type HttpContext, releaseHeldHeaders, sendJson } from './http-context.js';
import { errorJson } from './json-writer.js';

/** RFC 6750: a 401 names the scheme and realm the client must authenticate with. */
const BEARER_CHALLENGE = 'Bearer realm="petstore"';

/** RFC 6750 section 3.1: an expired key is an invalid token, said so, so a client need not guess. */
const EXPIRED_CHALLENGE = 'Bearer realm="petstore", error="invalid_token", error_description="the API key has expired"';

/** How soon a client may try again after a 503: the shared limiter's circuit is retried every second. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = '1';

/**
 * Answers with the Error body of `code`, its status taken from the error table, and `extraJson` (more
 * members, each after a comma) when an answer carries more. Headers set earlier (request id, rate
 * limits, Retry-After, Allow, a 403's challenge) stay: they belong to the answer. A 401 gets its
 * challenge, and a 503 a Retry-After.
 */
export function sendError(ctx: HttpContext, code: ErrorCode, message: string, extraJson = ''): void {
  const status = ERROR_STATUS[code];
  releaseHeldHeaders(ctx);
  ctx.status = status;
  if (code === 'unauthorized') ctx.set('WWW-Authenticate', BEARER_CHALLENGE);
  if (code === 'key_expired') ctx.set('WWW-Authenticate', EXPIRED_CHALLENGE);
  if (code === 'unavailable') ctx.set('Retry-After', UNAVAILABLE_RETRY_AFTER_SECONDS);
  sendJson(ctx, errorJson(code, message, status, extraJson));
}

/** An expected failure found in a thrown error: a client's unreadable body, or a store that is down. */
export interface ThrownProblem {
  readonly code: ErrorCode;
  readonly message: string;
}

const CUT_OFF: ThrownProblem = { code: 'invalid_body', message: 'the body was cut off before its end' };

// The `type` raw-body (under koa-bodyparser) gives the errors a client's body can cause: too long, or
// cut off by a client that left, while the body was read or before reading began (the body is read
// once, so a stream that is no longer readable means the client went). Encodings and charsets never
// reach it: json-body refuses them first. Mapping by type, not by the library's status, keeps status
// numbers in the error table alone.
const BODY_ERRORS: ReadonlyMap<string, ThrownProblem> = new Map<string, ThrownProblem>([
  ['entity.too.large', { code: 'payload_too_large', message: 'the body is larger than the service accepts' }],
  ['request.aborted', CUT_OFF],
  ['stream.not.readable', CUT_OFF],
]);

const UNAVAILABLE: ThrownProblem = {
  code: 'unavailable',
  message: 'a service this request needs is unavailable; retry shortly',
};

const OUTCOME_UNKNOWN: ThrownProblem = {
  code: 'outcome_unknown',
  message:
    "the database's answer to this write was lost and whether it was saved could not be learnt; read before " +
    'writing again, or retry with the same Idempotency-Key, which replays the write if it was saved',
};

/**
 * The expected problem a thrown error stands for, or `undefined` when it is a failure of the service
 * (a 500). A store that cannot answer for now (PostgreSQL down) throws an error whose `code` is
 * `unavailable`: that is a 503, not a bug. A limiter says so in its answer instead (the RateLimiter port).
 * A write whose COMMIT was sent but whose answer was lost, and whose end could not be learnt, throws
 * one whose `code` is `outcome_unknown`.
 */
export function thrownProblemOf(error: unknown): ThrownProblem | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  if ('code' in error && error.code === 'unavailable') return UNAVAILABLE;
  if ('code' in error && error.code === 'outcome_unknown') return OUTCOME_UNKNOWN;
  if (!('type' in error) || typeof error.type !== 'string') return undefined;
  const problem = BODY_ERRORS.get(error.type);
  if (problem?.code === 'payload_too_large' && 'limit' in error && typeof error.limit === 'number') {
    return { code: problem.code, message: `the body is larger than ${error.limit} bytes` };
  }
  return problem;
}
