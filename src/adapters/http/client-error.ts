import { ERROR_STATUS, type ErrorCode } from './error-table.js';
import { JSON_CONTENT_TYPE } from './http-context.js';
import { errorJson } from './json-writer.js';
import { requestIdOf } from './request-id.js';

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  503: 'Service Unavailable',
};

/** Node's parser errors, by the code it gives them, and what the client is told. */
function problemOf(code: string | undefined): { readonly code: ErrorCode; readonly message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return { code: 'header_fields_too_large', message: 'the request headers are larger than the server accepts' };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { code: 'request_timeout', message: 'the request did not arrive in time' };
  }
  return { code: 'bad_request', message: 'the request is not valid HTTP/1.1' };
}

/**
 * The whole HTTP response to a request that Node's parser refused before the app could see it (a
 * malformed request line, an unknown method, headers past the size limit, a request timeout): the
 * same Error body and X-Request-Id as every other answer, instead of Node's bare status line. The
 * connection closes after it, since the parser cannot find where the next request would start.
 * Resolves to `undefined` when the client is already gone and nothing should be written.
 */
export function clientErrorResponse(error: Error & { readonly code?: string }): string | undefined {
  if (error.code === 'ECONNRESET') return undefined;
  const problem = problemOf(error.code);
  return rawErrorResponse(problem.code, problem.message, []);
}

/**
 * The whole HTTP response to a connection refused by a connection cap, written as soon as it is
 * accepted and before any request is read: 429 when its client address holds its share of the
 * server's connections, 503 when the server holds all it takes. Both say when to try again, so that a
 * client library that pools connections backs off instead of seeing a reset.
 */
export function connectionRefusedResponse(cap: 'address' | 'server', retryAfterSeconds: number): string {
  const [code, message]: [ErrorCode, string] =
    cap === 'address'
      ? ['too_many_connections', 'this client address holds as many connections as the server gives one address']
      : ['unavailable', 'the server holds as many connections as it takes'];
  return rawErrorResponse(code, `${message}; try again in ${retryAfterSeconds} s`, [
    `Retry-After: ${retryAfterSeconds}`,
  ]);
}

function rawErrorResponse(code: ErrorCode, message: string, headers: readonly string[]): string {
  const status = ERROR_STATUS[code];
  const body = errorJson(code, message, status);
  return [
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}`,
    `Content-Type: ${JSON_CONTENT_TYPE}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestIdOf(undefined)}`,
    ...headers,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}
