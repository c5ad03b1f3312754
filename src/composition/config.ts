import * as v from 'valibot';
import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from '../adapters/http/server/http-server.js';
import { integerInRange } from '../domain/decimal-integer.js';
import {
  DEFAULT_MAX_HOLD_TTL_SECONDS,
  DEFAULT_MAX_HOLDS_PER_KEY,
  type HoldLimits,
  TTL_MAX_SECONDS,
} from '../domain/reservation.js';
import type { SettingName } from './settings.js';

/** Where the service runs; development alone seeds an empty database and prints a key. */
export type Environment = 'development' | 'staging' | 'production';

/** The service's configuration, read once from the environment at start. */
export interface Config {
  readonly env: Environment;
  readonly host: string;
  readonly port: number;
  readonly dbPath: string;
  readonly synchronous: 'FULL' | 'NORMAL';
  /** PostgreSQL for every storage port when set; otherwise the SQLite file at `dbPath`. */
  readonly databaseUrl: string | undefined;
  readonly postgres: {
    readonly poolSize: number;
    readonly statementTimeoutMs: number;
    readonly connectTimeoutMs: number;
    /** Groups of writes under way at once, each on a connection of the pool. */
    readonly writeLanes: number;
  };
  readonly redisUrl: string | undefined;
  /** Masters of a Redis Cluster to share limits through, instead of the one server of `redisUrl`. */
  readonly redisClusterNodes: readonly { readonly host: string; readonly port: number }[] | undefined;
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
  /** How many reservations a key may hold at once, and for how long each (409/400 past either). */
  readonly holdLimits: HoldLimits;
  /** Whether a PATCH must carry If-Match (428 without it). */
  readonly requireIfMatch: boolean;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Whether the service keeps Prometheus metrics (requests, limiter, storage, process). */
  readonly metrics: boolean;
  /** A port of its own for GET /metrics (on `host`); absent: /metrics is served on `port`. */
  readonly metricsPort: number | undefined;
  /** Traces exported as OTLP over HTTP to this collector (OTEL_EXPORTER_OTLP_ENDPOINT); absent: no tracing. */
  readonly tracing: { readonly endpoint: string } | undefined;
  /** Webhook endpoints and their delivery (see docs/operations.md, "Webhooks"). */
  readonly webhooks: {
    /** Lets endpoints be http, and inside the network (PETSTORE_WEBHOOK_ALLOW_PRIVATE): tests, a local receiver. */
    readonly allowPrivate: boolean;
    /** How often an idle dispatcher looks for events to deliver. */
    readonly pollMs: number;
    /** The wait after a first failed attempt; each further failure doubles it, up to an hour. */
    readonly retryFirstDelayMs: number;
    /** How many attempts an instance has under way at most, over every endpoint. */
    readonly concurrency: number;
    /** How many of them one endpoint may hold: one that never answers holds no more than these. */
    readonly maxInFlightPerEndpoint: number;
  };
}

/** A configuration value the service cannot start with; names the variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** A whole number by the service's one integer rule (`integerOfDecimal`), within `min..max`. */
const integer = (min: number, max: number) =>
  v.pipe(
    v.string(),
    v.rawTransform<string, number>(({ dataset, addIssue, NEVER }) => {
      const value = integerInRange(dataset.value, min, max);
      if (value !== undefined) return value;
      addIssue({ message: `must be a whole number from ${min} to ${max}` });
      return NEVER;
    }),
  );

const baseUrl = v.pipe(
  v.string(),
  v.url('must be an absolute URL'),
  v.regex(/\/v1$/, 'must end in the version segment /v1'),
);

const DURATION_MAX_SECONDS = 30 * 86_400;

const durations = v.pipe(
  v.string(),
  v.rawTransform<string, number[]>(({ dataset, addIssue, NEVER }) => {
    const seconds = dataset.value.split(',').map((n) => integerInRange(n, 1, DURATION_MAX_SECONDS));
    if (seconds.every((s) => s !== undefined)) return seconds.map((s) => s * 1000);
    addIssue({
      message: `must be a comma-separated list of whole seconds from 1 to ${DURATION_MAX_SECONDS}, e.g. 300,900,3600`,
    });
    return NEVER;
  }),
);

const CLUSTER_NODE = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d+)$/;

/** `host:port,host:port`: some masters of a Redis Cluster (an IPv6 address in brackets). */
const clusterNodes = v.pipe(
  v.string(),
  v.rawTransform<string, { host: string; port: number }[]>(({ dataset, addIssue, NEVER }) => {
    const nodes = dataset.value.split(',').map((entry) => {
      const match = CLUSTER_NODE.exec(entry.trim());
      const port = match?.[2] === undefined ? undefined : integerInRange(match[2], 1, 65_535);
      return match?.[1] === undefined || port === undefined
        ? undefined
        : { host: match[1].replace(/^\[|\]$/g, ''), port };
    });
    if (nodes.every((n) => n !== undefined)) return nodes;
    addIssue({ message: 'must be a comma-separated list of host:port, e.g. 10.0.0.1:7000,10.0.0.2:7000' });
    return NEVER;
  }),
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
  DATABASE_URL: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^postgres(ql)?:\/\/[^/]/, 'must be a PostgreSQL URL: postgres://user:password@host:5432/database'),
      v.check((url) => URL.canParse(url), 'must be a PostgreSQL URL: postgres://user:password@host:5432/database'),
    ),
  ),
  PETSTORE_PG_POOL_SIZE: v.optional(integer(1, 1_000), '10'),
  PETSTORE_PG_STATEMENT_TIMEOUT_MS: v.optional(integer(1, 600_000), '5000'),
  PETSTORE_PG_CONNECT_TIMEOUT_MS: v.optional(integer(1, 600_000), '2000'),
  PETSTORE_PG_WRITE_LANES: v.optional(integer(1, 100), '1'),
  REDIS_URL: v.optional(v.pipe(v.string(), v.regex(/^rediss?:\/\//, 'must start with redis:// or rediss://'))),
  REDIS_CLUSTER_NODES: v.optional(clusterNodes),
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
  PETSTORE_MAX_CONNECTIONS_PER_ADDRESS: v.optional(
    integer(1, 1_000_000),
    String(DEFAULT_CONNECTION_LIMITS.maxConnectionsPerAddress),
  ),
  PETSTORE_IDLE_CONNECTION_GRACE_MS: v.optional(
    integer(0, 600_000),
    String(DEFAULT_CONNECTION_LIMITS.idleConnectionGraceMs),
  ),
  PETSTORE_FIRST_BYTE_TIMEOUT_MS: v.optional(integer(1, 600_000), String(DEFAULT_CONNECTION_LIMITS.firstByteTimeoutMs)),
  PETSTORE_MAX_PIPELINED_REQUESTS: v.optional(
    integer(0, 1_000),
    String(DEFAULT_CONNECTION_LIMITS.maxPipelinedRequests),
  ),
  PETSTORE_PIPELINING_BAN_MS: v.optional(integer(0, 3_600_000), String(DEFAULT_CONNECTION_LIMITS.pipeliningBanMs)),
  PETSTORE_INACTIVITY_TIMEOUT_MS: v.optional(
    integer(1, 3_600_000),
    String(DEFAULT_CONNECTION_LIMITS.inactivityTimeoutMs),
  ),
  PETSTORE_KEY_CACHE_MS: v.optional(integer(0, 1_000), '500'),
  PETSTORE_IDEMPOTENCY_TTL_SECONDS: v.optional(integer(60, 604_800), '86400'),
  PETSTORE_MAX_HOLDS_PER_KEY: v.optional(integer(1, 1_000_000), String(DEFAULT_MAX_HOLDS_PER_KEY)),
  PETSTORE_MAX_HOLD_TTL_SECONDS: v.optional(integer(1, TTL_MAX_SECONDS), String(DEFAULT_MAX_HOLD_TTL_SECONDS)),
  PETSTORE_REQUIRE_IF_MATCH: v.optional(v.picklist(['true', 'false']), 'false'),
  LOG_LEVEL: v.optional(v.picklist(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), 'info'),
  PETSTORE_METRICS: v.optional(v.picklist(['on', 'off']), 'on'),
  PETSTORE_METRICS_PORT: v.optional(integer(0, 65_535)),
  PETSTORE_WEBHOOK_ALLOW_PRIVATE: v.optional(v.picklist(['true', 'false']), 'false'),
  PETSTORE_WEBHOOK_POLL_MS: v.optional(integer(10, 60_000), '1000'),
  PETSTORE_WEBHOOK_RETRY_FIRST_MS: v.optional(integer(1, 3_600_000), '5000'),
  PETSTORE_WEBHOOK_CONCURRENCY: v.optional(integer(1, 10_000), '256'),
  PETSTORE_WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: v.optional(integer(1, 10_000), '4'),
  OTEL_EXPORTER_OTLP_ENDPOINT: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^https?:\/\/[^/]/, 'must be the URL of an OTLP/HTTP collector, e.g. http://127.0.0.1:4318'),
      v.check((url) => URL.canParse(url), 'must be the URL of an OTLP/HTTP collector, e.g. http://127.0.0.1:4318'),
    ),
  ),
  // Name for name the list `petstore serve --help` prints: a variable read here and missing there fails the build.
} satisfies Record<SettingName, v.GenericSchema>);

/** The variables whose values may hold credentials (a URL's user and password): never printed. */
const SECRET_BEARING: ReadonlySet<string> = new Set(['DATABASE_URL', 'REDIS_URL', 'OTEL_EXPORTER_OTLP_ENDPOINT']);

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
    // A database or Redis URL may carry a password: the message names the variable, never its value.
    const shown = SECRET_BEARING.has(name) ? '(value not shown)' : JSON.stringify(present[name] ?? '');
    throw new ConfigError(`${name}=${shown}: ${issue.message}`);
  }
  const e = parsed.output;
  if (e.PETSTORE_PETS_DEPRECATED_AT > e.PETSTORE_PETS_SUNSET) {
    throw new ConfigError('PETSTORE_PETS_DEPRECATED_AT: must not be later than PETSTORE_PETS_SUNSET');
  }
  if (e.PETSTORE_METRICS_PORT !== undefined && e.PETSTORE_METRICS_PORT !== 0 && e.PETSTORE_METRICS_PORT === e.PORT) {
    throw new ConfigError('PETSTORE_METRICS_PORT: must differ from PORT, or /metrics would share the API listener');
  }
  if (e.PETSTORE_METRICS_PORT !== undefined && e.PETSTORE_METRICS === 'off') {
    throw new ConfigError('PETSTORE_METRICS_PORT: needs PETSTORE_METRICS=on; there are no metrics to serve');
  }
  if (e.REDIS_URL !== undefined && e.REDIS_CLUSTER_NODES !== undefined) {
    throw new ConfigError('REDIS_CLUSTER_NODES: set it or REDIS_URL, not both (a cluster, or one server)');
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
    databaseUrl: e.DATABASE_URL,
    postgres: {
      poolSize: e.PETSTORE_PG_POOL_SIZE,
      statementTimeoutMs: e.PETSTORE_PG_STATEMENT_TIMEOUT_MS,
      connectTimeoutMs: e.PETSTORE_PG_CONNECT_TIMEOUT_MS,
      writeLanes: e.PETSTORE_PG_WRITE_LANES,
    },
    redisUrl: e.REDIS_URL,
    redisClusterNodes: e.REDIS_CLUSTER_NODES,
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
      maxConnectionsPerAddress: e.PETSTORE_MAX_CONNECTIONS_PER_ADDRESS,
      idleConnectionGraceMs: e.PETSTORE_IDLE_CONNECTION_GRACE_MS,
      firstByteTimeoutMs: e.PETSTORE_FIRST_BYTE_TIMEOUT_MS,
      maxPipelinedRequests: e.PETSTORE_MAX_PIPELINED_REQUESTS,
      pipeliningBanMs: e.PETSTORE_PIPELINING_BAN_MS,
      inactivityTimeoutMs: e.PETSTORE_INACTIVITY_TIMEOUT_MS,
    },
    keyCacheMs: e.PETSTORE_KEY_CACHE_MS,
    idempotencyTtlMs: e.PETSTORE_IDEMPOTENCY_TTL_SECONDS * 1000,
    holdLimits: { perKey: e.PETSTORE_MAX_HOLDS_PER_KEY, ttlMs: e.PETSTORE_MAX_HOLD_TTL_SECONDS * 1000 },
    requireIfMatch: e.PETSTORE_REQUIRE_IF_MATCH === 'true',
    logLevel: e.LOG_LEVEL,
    metrics: e.PETSTORE_METRICS === 'on',
    metricsPort: e.PETSTORE_METRICS_PORT,
    tracing: e.OTEL_EXPORTER_OTLP_ENDPOINT === undefined ? undefined : { endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT },
    webhooks: {
      allowPrivate: e.PETSTORE_WEBHOOK_ALLOW_PRIVATE === 'true',
      pollMs: e.PETSTORE_WEBHOOK_POLL_MS,
      retryFirstDelayMs: e.PETSTORE_WEBHOOK_RETRY_FIRST_MS,
      concurrency: e.PETSTORE_WEBHOOK_CONCURRENCY,
      maxInFlightPerEndpoint: e.PETSTORE_WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
    },
  };
}
