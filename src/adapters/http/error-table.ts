import type { DomainErrorCode } from '../../domain/errors.js';

/** The codes only the HTTP edge produces: routing, media type, size, deprecation and server failures. */
export type HttpOnlyErrorCode =
  | 'bad_request'
  | 'request_timeout'
  | 'header_fields_too_large'
  | 'expectation_failed'
  | 'invalid_body'
  | 'invalid_query'
  | 'not_found'
  | 'method_not_allowed'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'gone'
  | 'internal_error'
  | 'unavailable';

/** Every `code` an Error body can carry. */
export type ErrorCode = DomainErrorCode | HttpOnlyErrorCode;

/**
 * The one place that knows HTTP status numbers. Typed as a total record, so a new domain code does not
 * compile until it has a status here.
 */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  bad_request: 400,
  invalid_body: 400,
  invalid_query: 400,
  invalid_pet_id: 400,
  unauthorized: 401,
  pet_not_found: 404,
  key_not_found: 404,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_key_in_use: 409,
  request_timeout: 408,
  duplicate_pet: 409,
  duplicate_order: 409,
  gone: 410,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  expectation_failed: 417,
  idempotency_key_reused: 422,
  header_fields_too_large: 431,
  rate_limited: 429,
  key_banned: 429,
  internal_error: 500,
  unavailable: 503,
};

/** The status of every success: each operation answers 200 with its body. */
export const SUCCESS_STATUS = 200;

/** Every code, in table order: the enum of the Error schema in the OpenAPI document. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as readonly ErrorCode[];

/** The statuses the error codes produce, for the OpenAPI document's responses. */
export const statusOf = (code: ErrorCode): number => ERROR_STATUS[code];
