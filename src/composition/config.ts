import * as v from 'valibot';
import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from './http-server.js';

/** Where the service runs; development alone seeds an empty database and prints a key. */
export type Environment = 'development' | 'staging' | 'production';

/** The service's configuration, read once from the environment at start. */
export interface Config {
  readonly env: Environment;
  readonly host: string;
  readonly port: number;
  readonly dbPath: string;
  readonly synchronous: 'FULL' | 'NORMAL';
  readonly redisUrl: string | undefined;
  readonly redisCommandTimeoutMs: number;
  /** What the limiter does while Redis is unreachable: fall back in process, or answer 503. */
  readonly rateLimitFailure: 'open' | 'closed';
  readonly ban: { readonly strikes: number; readonly strikeWindowMs: number; readonly durationsMs: readonly number[] };
  readonly sunsetAt: Date;
  readonly deprecatedAt: Date;
  readonly servers: { readonly production: string; readonly staging: string };
  readonly trustProxy: boolean;
  readonly drainTimeoutMs: number;
  /** The server's timeouts and its cap on open connections. */
  readonly connectionLimits: ConnectionLimits;
  /** How long a key found by hash is trusted without reading the store: a revocation's delay elsewhere. */
  readonly keyCacheMs: number;
  /** How long the outcome of a PATCH with an Idempotency-Key is kept for its retries. */
  readonly idempotencyTtlMs: number;
  /** Whether a PATCH must carry If-Match (428 without it). */
  readonly requireIfMatch: boolean;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

/** A configuration value the service cannot start with; names the variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const integer = (min: number, max: number) =>
  v.pipe(
    v.string(),
    v.regex(/^[0-9]+$/, `must be a whole number from ${min} to ${max}`),
    v.transform(Number),
    v.number(),
    v.minValue(min, `must be a whole number from ${min} to ${max}`),
    v.maxValue(max, `must be a whole number from ${min} to ${max}`),
  );

const baseUrl = v.pipe(
  v.string(),
  v.url('must be an absolute URL'),
  v.regex(/\/v1$/, 'must end in the version segment /v1'),
);

const durations = v.pipe(
  v.string(),
  v.regex(/^[0-9]+(,[0-9]+)*$/, 'must be a comma-separated list of whole seconds, e.g. 300,900,3600'),
  v.transform((s) => s.split(',').map((n) => Number(n) * 1000)),
  v.check((list) => list.every((ms) => ms > 0), 'every duration must be at least 1 second'),
);

const httpDate = v.pipe(
  v.string(),
  v.transform((s) => new Date(s)),
  v.check((d) => !Number.isNaN(d.getTime()), 'must be a date, e.g. 2027-06-30T00:00:00Z'),
);

const EnvSchema = v.object({
  PETSTORE_ENV: v.optional(v.picklist(['development', 'staging', 'production']), 'development'),
  HOST: v.optional(v.pipe(v.string(), v.nonEmpty('must not be empty')), '127.0.0.1'),
  PORT: v.optional(integer(0, 65_535), '8080'),
  PETSTORE_DB: v.optional(v.pipe(v.string(), v.nonEmpty('must not be empty')), './data/petstore.db'),
  PETSTORE_SYNCHRONOUS: v.optional(v.picklist(['FULL', 'NORMAL']), 'FULL'),
  REDIS_URL: v.optional(v.pipe(v.string(), v.regex(/^rediss?:\/\//, 'must start with redis:// or rediss://'))),
  REDIS_COMMAND_TIMEOUT_MS: v.optional(integer(1, 60_000), '100'),
  PETSTORE_RATE_LIMIT_FAILURE: v.optional(v.picklist(['open', 'closed']), 'open'),
  PETSTORE_BAN_STRIKES: v.optional(integer(1, 1_000_000), '20'),
  PETSTORE_BAN_STRIKE_WINDOW_SECONDS: v.optional(integer(1, 86_400), '60'),
  PETSTORE_BAN_DURATIONS_SECONDS: v.optional(durations, '300,900,3600'),
  PETSTORE_PETS_SUNSET: v.optional(httpDate, '2027-06-30T00:00:00Z'),
  PETSTORE_PETS_DEPRECATED_AT: v.optional(httpDate, '2026-01-01T00:00:00Z'),
  PETSTORE_BASE_URL: v.optional(baseUrl),
  PETSTORE_STAGING_BASE_URL: v.optional(baseUrl),
  PETSTORE_TRUST_PROXY: v.optional(v.picklist(['true', 'false']), 'false'),
  PETSTORE_DRAIN_TIMEOUT_MS: v.optional(integer(0, 600_000), '10000'),
  PETSTORE_HEADERS_TIMEOUT_MS: v.optional(integer(1, 600_000), String(DEFAULT_CONNECTION_LIMITS.headersTimeoutMs)),
  PETSTORE_REQUEST_TIMEOUT_MS: v.optional(integer(1, 3_600_000), String(DEFAULT_CONNECTION_LIMITS.requestTimeoutMs)),
  PETSTORE_KEEP_ALIVE_TIMEOUT_MS: v.optional(integer(1, 600_000), String(DEFAULT_CONNECTION_LIMITS.keepAliveTimeoutMs)),
  PETSTORE_MAX_CONNECTIONS: v.optional(integer(1, 1_000_000), String(DEFAULT_CONNECTION_LIMITS.maxConnections)),
  PETSTORE_KEY_CACHE_MS: v.optional(integer(0, 1_000), '500'),
  PETSTORE_IDEMPOTENCY_TTL_SECONDS: v.optional(integer(60, 604_800), '86400'),
  PETSTORE_REQUIRE_IF_MATCH: v.optional(v.picklist(['true', 'false']), 'false'),
  LOG_LEVEL: v.optional(v.picklist(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), 'info'),
});

/**
 * Reads and validates the configuration. Empty variables count as unset. Throws a ConfigError naming
 * the first bad variable, so a wrong value stops the start instead of surfacing later.
 */
export function readConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const present = Object.fromEntries(
    Object.keys(EnvSchema.entries)
      .filter((name) => env[name] !== undefined && env[name] !== '')
      .map((name) => [name, env[name]]),
  );
  const parsed = v.safeParse(EnvSchema, present);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const name = v.getDotPath(issue) ?? 'configuration';
    throw new ConfigError(`${name}=${JSON.stringify(present[name] ?? '')}: ${issue.message}`);
  }
  const e = parsed.output;
  if (e.PETSTORE_PETS_DEPRECATED_AT > e.PETSTORE_PETS_SUNSET) {
    throw new ConfigError('PETSTORE_PETS_DEPRECATED_AT: must not be later than PETSTORE_PETS_SUNSET');
  }
  // Node refuses a server whose whole request may take less time than its headers.
  if (e.PETSTORE_REQUEST_TIMEOUT_MS < e.PETSTORE_HEADERS_TIMEOUT_MS) {
    throw new ConfigError('PETSTORE_REQUEST_TIMEOUT_MS: must not be shorter than PETSTORE_HEADERS_TIMEOUT_MS');
  }
  const local = `http://${e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST}:${e.PORT}/v1`;
  return {
    env: e.PETSTORE_ENV,
    host: e.HOST,
    port: e.PORT,
    dbPath: e.PETSTORE_DB,
    synchronous: e.PETSTORE_SYNCHRONOUS,
    redisUrl: e.REDIS_URL,
    redisCommandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
    rateLimitFailure: e.PETSTORE_RATE_LIMIT_FAILURE,
    ban: {
      strikes: e.PETSTORE_BAN_STRIKES,
      strikeWindowMs: e.PETSTORE_BAN_STRIKE_WINDOW_SECONDS * 1000,
      durationsMs: e.PETSTORE_BAN_DURATIONS_SECONDS,
    },
    sunsetAt: e.PETSTORE_PETS_SUNSET,
    deprecatedAt: e.PETSTORE_PETS_DEPRECATED_AT,
    servers: {
      production: e.PETSTORE_BASE_URL ?? local,
      staging: e.PETSTORE_STAGING_BASE_URL ?? e.PETSTORE_BASE_URL ?? local,
    },
    trustProxy: e.PETSTORE_TRUST_PROXY === 'true',
    drainTimeoutMs: e.PETSTORE_DRAIN_TIMEOUT_MS,
    connectionLimits: {
      headersTimeoutMs: e.PETSTORE_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.PETSTORE_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.PETSTORE_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: e.PETSTORE_MAX_CONNECTIONS,
    },
    keyCacheMs: e.PETSTORE_KEY_CACHE_MS,
    idempotencyTtlMs: e.PETSTORE_IDEMPOTENCY_TTL_SECONDS * 1000,
    requireIfMatch: e.PETSTORE_REQUIRE_IF_MATCH === 'true',
    logLevel: e.LOG_LEVEL,
  };
}
