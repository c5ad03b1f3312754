import { SCOPES } from '../../domain/api-key.js';
import { LIMIT_MAX } from '../../domain/plan.js';
import { statusOf } from './error-table.js';
import type { Json, JsonObject } from './openapi-components.js';
import { INTERNAL, LIMIT_HEADERS, ref, responses, TOO_MANY, UNAUTHORIZED, UNAVAILABLE } from './openapi-responses.js';
import { scopeNeeded } from './operation-scopes.js';

const count: JsonObject = { type: 'integer', format: 'int32', minimum: 0, maximum: LIMIT_MAX };
const unixSeconds: JsonObject = { type: 'integer', format: 'int64', minimum: 0, maximum: 8_640_000_000_000 };

/** The schemas of the key lifecycle: scopes and the body of getRateLimit. */
export const KEY_SCHEMAS: JsonObject = {
  Scope: {
    type: 'string',
    enum: [...SCOPES],
    description: 'What a key may do: inventory:read (every GET), inventory:write (every other method).',
  },
  RateLimitWindow: {
    type: 'object',
    required: ['limit', 'remaining', 'reset', 'used'],
    additionalProperties: false,
    properties: {
      limit: { ...count, description: 'Requests the window admits.' },
      remaining: { ...count, description: 'Requests it still admits now.' },
      reset: { ...unixSeconds, description: 'Unix time, in seconds rounded up, when remaining next rises.' },
      used: { ...count, description: 'Requests it holds now.' },
    },
  },
  RateLimitStatus: {
    type: 'object',
    required: ['key', 'limits'],
    additionalProperties: false,
    properties: {
      key: {
        type: 'object',
        required: ['id', 'name', 'plan', 'scopes', 'expiresAt'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', maxLength: 64, description: 'Id of the key (never the key itself).' },
          name: { type: ['string', 'null'], maxLength: 200, description: 'The name given to the key, if any.' },
          plan: { type: 'string', enum: ['free', 'pro', 'business', 'enterprise'] },
          scopes: { type: 'array', maxItems: SCOPES.length, items: ref('schemas', 'Scope') },
          expiresAt: {
            type: ['string', 'null'],
            format: 'date-time',
            description: 'When the key stops working (RFC 3339 UTC); null when it does not expire.',
          },
        },
      },
      limits: {
        type: 'object',
        required: ['minute', 'day'],
        additionalProperties: false,
        properties: { minute: ref('schemas', 'RateLimitWindow'), day: ref('schemas', 'RateLimitWindow') },
      },
      bannedUntil: {
        ...unixSeconds,
        description: 'Present while the key is banned: Unix time, in seconds rounded up, when the ban ends.',
      },
    },
  },
};

/** A 403 for want of a scope: every operation that needs a key can answer it. */
const FORBIDDEN = {
  description:
    'insufficient_scope: the key lacks the scope this operation needs; WWW-Authenticate names it (RFC 6750).',
  headers: [...LIMIT_HEADERS, 'WWW-Authenticate.scope'],
};

export const getRateLimit: JsonObject = {
  operationId: 'getRateLimit',
  tags: ['meta'],
  summary: 'Read the calling key’s limits',
  description:
    'The calling key and where it stands in both windows. Not counted against the limits, and answered even ' +
    `while the key’s other requests get ${statusOf('rate_limited')} (bannedUntil tells when a ban ends). The ` +
    'rate-limit headers are those the next request would start from. An old and a new key of a roll share ' +
    'one set of limits. A request without a valid key is limited per client address, as everywhere.',
  responses: responses({
    ok: { description: 'The key and its limits.', schema: ref('schemas', 'RateLimitStatus') },
    unauthorized: UNAUTHORIZED,
    rate_limited: TOO_MANY,
    internal_error: INTERNAL,
    unavailable: UNAVAILABLE,
  }),
};

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Writes each operation's scope into the document: a security requirement naming the scope its method
 * needs (scopeNeeded, the rule the service applies), and the 403 it answers without it. Applied to
 * every path, so an operation added later states its scope with nothing to remember; an operation
 * open without a key (`security: []`) is left as it is.
 */
export function withScopes(paths: JsonObject): JsonObject {
  const out: Record<string, Json> = {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) {
      out[path] = item;
      continue;
    }
    const operations: Record<string, Json> = {};
    for (const [method, operation] of Object.entries(item)) {
      const open = isObject(operation) && Array.isArray(operation.security) && operation.security.length === 0;
      if (!isObject(operation) || open) {
        operations[method] = operation;
        continue;
      }
      const scope = scopeNeeded(method.toUpperCase());
      operations[method] = {
        ...operation,
        security: [{ bearerAuth: [scope] }],
        responses: { ...(operation.responses as JsonObject), ...responses({ insufficient_scope: FORBIDDEN }) },
      };
    }
    out[path] = operations;
  }
  return out;
}
