import { CREATED_STATUS, type ErrorCode, NOT_MODIFIED_STATUS, SUCCESS_STATUS, statusOf } from './error-table.js';
import type { Json, JsonObject } from './openapi-components.js';

/** The rate-limit headers every /v1 answer carries once the limiter has decided. */
export const LIMIT_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
];

export const ref = (kind: string, name: string): JsonObject => ({ $ref: `#/components/${kind}/${name}` });

/** A header component is sent as its name up to a dot (`Link.next` is a `Link` field). */
const fieldOf = (component: string): string => component.split('.')[0] as string;

const headerRefs = (components: readonly string[]): JsonObject =>
  Object.fromEntries(['X-Request-Id', ...components].map((name) => [fieldOf(name), ref('headers', name)]));

export const jsonContent = (schema: JsonObject): JsonObject => ({ 'application/json': { schema } });

const ERROR_BODY = jsonContent(ref('schemas', 'Error'));

/** One documented response: its description, headers (components, by name) and body. */
export interface ResponseSpec {
  readonly description: string;
  readonly headers?: readonly string[];
  readonly schema?: JsonObject;
  /** The body's content by media type, when it is not JSON (`schema` is then unused). */
  readonly content?: JsonObject;
}

/**
 * A response keyed by the code it carries, `ok` for the success (`created` for a 201) or `not_modified`
 * for a 304, so that statuses come from the error table.
 */
export type Responses = Partial<Record<ErrorCode | 'ok' | 'created' | 'not_modified', ResponseSpec>>;

const SUCCESSES: Readonly<Record<string, number>> = {
  ok: SUCCESS_STATUS,
  created: CREATED_STATUS,
  not_modified: NOT_MODIFIED_STATUS,
};

/** The responses object of an operation; `extraHeaders` go on every one of them. */
export function responses(specs: Responses, extraHeaders: readonly string[] = []): JsonObject {
  const out: Record<string, Json> = {};
  for (const [key, spec] of Object.entries(specs) as [keyof Responses, ResponseSpec][]) {
    const status = SUCCESSES[key] ?? statusOf(key as ErrorCode);
    const headers = headerRefs([...(spec.headers ?? LIMIT_HEADERS), ...extraHeaders]);
    if (key === 'not_modified') {
      out[String(status)] = { description: spec.description, headers };
      continue;
    }
    out[String(status)] = {
      description: spec.description,
      headers,
      content: key === 'ok' || key === 'created' ? (spec.content ?? jsonContent(spec.schema ?? {})) : ERROR_BODY,
    };
  }
  return out;
}

// Answers every /v1 operation can give once past routing. A 500 or 503 lists no limit headers: when
// the limiter itself fails, there is no decision to report. A 503 says when to retry.
export const UNAUTHORIZED: ResponseSpec = {
  description:
    'unauthorized: the API key is missing, malformed, unknown or revoked; key_expired: the key is past its ' +
    'expiry, or past the grace of a roll (use the key that replaced it).',
  headers: [...LIMIT_HEADERS, 'WWW-Authenticate'],
};
export const TOO_MANY: ResponseSpec = {
  description:
    'rate_limited: a window is spent; or key_banned: 20 refusals within 60 s ban the key (or address) for ' +
    '5 min, then 15 min, then 60 min within a day.',
  headers: [...LIMIT_HEADERS, 'Retry-After'],
};
export const INTERNAL: ResponseSpec = {
  description: 'internal_error: the service failed; the message carries the request id to quote.',
  headers: [],
};
/** INTERNAL for a write: the store may not know whether it was saved (a 500 too, never a 503). */
export const WRITE_INTERNAL: ResponseSpec = {
  description:
    `${INTERNAL.description} outcome_unknown: the database's answer to the write's COMMIT was lost and how it ` +
    'ended could not be learnt: it may be saved or not. Read before writing again, or retry with the same ' +
    'Idempotency-Key, which replays the write if it was saved.',
  headers: [],
};
export const UNAVAILABLE: ResponseSpec = {
  description:
    'unavailable: a service the request needs (the shared rate limiter, when configured to fail closed) is down.',
  headers: ['Retry-After'],
};
export const BAD_PET_ID: ResponseSpec = {
  description: 'invalid_pet_id: petId is not a base-10 signed 64-bit integer.',
};
export const PET_NOT_FOUND: ResponseSpec = { description: 'pet_not_found: no pet has this id.' };

export const PET_ID_PARAMETER: JsonObject = {
  name: 'petId',
  in: 'path',
  required: true,
  description: 'Id of the pet, in canonical base 10 (no +, no leading zeros, no exponent).',
  schema: { type: 'integer', format: 'int64' },
};
