import { ERROR_STATUS, type ErrorCode } from './error-table.js';
import { JSON_CONTENT_TYPE } from './http-context.js';
import { errorJson } from './json-writer.js';
import { requestIdOf } from './request-id.js';

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
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
  const status = ERROR_STATUS[problem.code];
  const body = errorJson(problem.code, problem.message, status);
  return [
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}`,
    `Content-Type: ${JSON_CONTENT_TYPE}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestIdOf(undefined)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}
