import type { DomainErrorCode } from '../../domain/errors.js';

/** The codes only the HTTP edge produces: routing, media type, size, headers, deprecation and server failures. */
export type HttpOnlyErrorCode =
  | 'bad_request'
  | 'request_timeout'
  | 'header_fields_too_large'
  | 'expectation_failed'
  | 'invalid_body'
  | 'invalid_query'
  | 'invalid_if_match'
  | 'invalid_idempotency_key'
  | 'not_found'
  | 'method_not_allowed'
  | 'precondition_required'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'gone'
  | 'internal_error'
  | 'outcome_unknown'
  | 'unavailable'
  | 'too_many_connections';

/**
 * Domain codes that only the admin CLI can meet (adding pets or orders, revoking, rolling or expiring keys): no HTTP
 * operation leads to them, so they have no status and stay out of the OpenAPI document.
 */
export type CliOnlyErrorCode = Extract<
  DomainErrorCode,
  'duplicate_pet' | 'duplicate_order' | 'key_not_found' | 'key_inactive' | 'invalid_expiry'
>;

/** Every `code` an Error body can carry. */
export type ErrorCode = Exclude<DomainErrorCode, CliOnlyErrorCode> | HttpOnlyErrorCode;

/**
 * The one place that knows HTTP status numbers. Typed as a total record, so a new domain code does not
 * compile until it has a status here (or is named CLI-only above).
 */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  bad_request: 400,
  invalid_body: 400,
  invalid_query: 400,
  invalid_pet_id: 400,
  invalid_if_match: 400,
  invalid_idempotency_key: 400,
  hold_ttl_exceeded: 400,
  unauthorized: 401,
  key_expired: 401,
  insufficient_scope: 403,
  pet_not_found: 404,
  reservation_not_found: 404,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_key_in_use: 409,
  insufficient_stock: 409,
  quantity_limit_exceeded: 409,
  quantity_below_reserved: 409,
  reservation_committed: 409,
  reservation_released: 409,
  reservation_expired: 409,
  hold_limit_exceeded: 409,
  request_timeout: 408,
  gone: 410,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  expectation_failed: 417,
  idempotency_key_reused: 422,
  precondition_required: 428,
  header_fields_too_large: 431,
  rate_limited: 429,
  key_banned: 429,
  too_many_connections: 429,
  internal_error: 500,
  // Not 503: that says "not done, retry", and a write whose COMMIT answer was lost may be done.
  outcome_unknown: 500,
  unavailable: 503,
};

/** The status of every success but a new reservation's: each operation answers 200 with its body. */
export const SUCCESS_STATUS = 200;

/** The status of a reservation made: 201 with its Location. */
export const CREATED_STATUS = 201;

/** The status of a conditional GET whose `If-None-Match` names the current representation: no body. */
export const NOT_MODIFIED_STATUS = 304;

/** Every code, in table order: the enum of the Error schema in the OpenAPI document. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as readonly ErrorCode[];

/** The statuses the error codes produce, for the OpenAPI document's responses. */
export const statusOf = (code: ErrorCode): number => ERROR_STATUS[code];
