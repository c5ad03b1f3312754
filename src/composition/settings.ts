/**
 * Every environment variable `petstore serve` reads, with its default and what it means: the one list
 * that `petstore serve --help` prints and that readConfig's schema must match name for name (its
 * `satisfies` fails the build on a variable missing here; tests/cli/serve-help.test.ts checks each default
 * against what readConfig makes of no value). It imports nothing, so the help needs no package.
 */
export interface Setting {
  /** The value used when the variable is unset or empty; `undefined`: unset means off, or derived. */
  readonly default: string | undefined;
  /** One line: what the setting changes. */
  readonly meaning: string;
}

export const SETTINGS = {
  PETSTORE_ENV: {
    default: 'development',
    meaning: 'development, staging or production; development seeds an empty store and prints a key',
  },
  HOST: { default: '127.0.0.1', meaning: 'the address the API listens on' },
  PORT: { default: '8080', meaning: 'the port the API listens on (0: any free port)' },
  PETSTORE_DB: {
    default: './data/petstore.db',
    meaning: 'the SQLite file, created with its folder when missing (unused with DATABASE_URL)',
  },
  PETSTORE_SYNCHRONOUS: {
    default: 'FULL',
    meaning: 'FULL: a commit is on disk when answered; NORMAL is faster and may lose the last commits on power loss',
  },
  DATABASE_URL: {
    default: undefined,
    meaning:
      'postgres://user:password@host:5432/database: PostgreSQL for every store instead of SQLite (npm install pg)',
  },
  PETSTORE_PG_POOL_SIZE: { default: '10', meaning: 'PostgreSQL connections an instance holds at most' },
  PETSTORE_PG_STATEMENT_TIMEOUT_MS: { default: '5000', meaning: 'PostgreSQL cancels a statement after this' },
  PETSTORE_PG_CONNECT_TIMEOUT_MS: {
    default: '2000',
    meaning: 'the longest a request waits for a PostgreSQL connection',
  },
  PETSTORE_PG_WRITE_LANES: {
    default: '1',
    meaning: 'lanes of PostgreSQL group writes, a pooled connection each',
  },
  REDIS_URL: {
    default: undefined,
    meaning: 'redis://host:6379: limits shared by every instance through Redis (npm install ioredis)',
  },
  REDIS_CLUSTER_NODES: {
    default: undefined,
    meaning: 'host:port,host:port of Redis Cluster masters, instead of REDIS_URL',
  },
  REDIS_COMMAND_TIMEOUT_MS: { default: '100', meaning: 'a Redis command slower than this counts as Redis down' },
  PETSTORE_RATE_LIMIT_FAILURE: {
    default: 'open',
    meaning: 'while Redis is down: open limits in process, closed answers 503',
  },
  PETSTORE_BAN_STRIKES: { default: '20', meaning: 'refusals within the strike window that ban a client' },
  PETSTORE_BAN_STRIKE_WINDOW_SECONDS: { default: '60', meaning: 'the window the strikes are counted in' },
  PETSTORE_BAN_DURATIONS_SECONDS: {
    default: '300,900,3600',
    meaning: 'the first, second, ... ban durations, comma-separated',
  },
  PETSTORE_PETS_SUNSET: {
    default: '2027-06-30T00:00:00Z',
    meaning: 'the Sunset date announced on the deprecated /v1/pets routes',
  },
  PETSTORE_PETS_DEPRECATED_AT: {
    default: '2026-01-01T00:00:00Z',
    meaning: 'their Deprecation date (not later than the sunset)',
  },
  PETSTORE_BASE_URL: {
    default: undefined,
    meaning: 'the production server URL the OpenAPI document names, ending in /v1 (default: http://HOST:PORT/v1)',
  },
  PETSTORE_STAGING_BASE_URL: {
    default: undefined,
    meaning: 'the staging server URL it names (default: PETSTORE_BASE_URL)',
  },
  PETSTORE_TRUST_PROXY: {
    default: 'false',
    meaning: 'true behind a proxy that appends X-Forwarded-For: the client is its last entry',
  },
  PETSTORE_DRAIN_TIMEOUT_MS: {
    default: '10000',
    meaning: 'how long a stop waits for requests in flight before cutting them',
  },
  PETSTORE_HEADERS_TIMEOUT_MS: { default: '10000', meaning: "a request's headers must all arrive within this (408)" },
  PETSTORE_REQUEST_TIMEOUT_MS: { default: '30000', meaning: 'a whole request must arrive within this (408)' },
  PETSTORE_KEEP_ALIVE_TIMEOUT_MS: { default: '5000', meaning: 'an idle keep-alive connection is closed after this' },
  PETSTORE_FIRST_BYTE_TIMEOUT_MS: {
    default: '3000',
    meaning: 'a connection that has sent nothing this long after it was accepted is closed',
  },
  PETSTORE_MAX_CONNECTIONS: {
    default: '4000',
    meaning: 'open connections at most; past it the oldest idle one of the client holding the most is closed',
  },
  PETSTORE_MAX_CONNECTIONS_PER_ADDRESS: { default: '256', meaning: 'open connections at most from one client address' },
  PETSTORE_IDLE_CONNECTION_GRACE_MS: {
    default: '1000',
    meaning: 'idle this long, a connection gives way to a newcomer from its address',
  },
  PETSTORE_MAX_PIPELINED_REQUESTS: {
    default: '32',
    meaning: 'requests that may wait behind the one answered on a connection',
  },
  PETSTORE_PIPELINING_BAN_MS: {
    default: '10000',
    meaning: 'how long an address past that cap is refused connections (0: never)',
  },
  PETSTORE_INACTIVITY_TIMEOUT_MS: {
    default: '30000',
    meaning: 'a connection with a request under way and no traffic is closed after this',
  },
  PETSTORE_KEY_CACHE_MS: {
    default: '500',
    meaning: 'how long a key found is trusted without reading the store (at most 1000)',
  },
  PETSTORE_IDEMPOTENCY_TTL_SECONDS: {
    default: '86400',
    meaning: "how long a PATCH's Idempotency-Key outcome is kept for its retries",
  },
  PETSTORE_MAX_HOLDS_PER_KEY: {
    default: '1000',
    meaning: 'reservations a key may hold at once (409 hold_limit_exceeded past it)',
  },
  PETSTORE_MAX_HOLD_TTL_SECONDS: {
    default: '3600',
    meaning: 'the longest ttlSeconds a reservation may ask (400 hold_ttl_exceeded past it)',
  },
  PETSTORE_REQUIRE_IF_MATCH: { default: 'false', meaning: 'true: a PATCH without If-Match is refused 428' },
  LOG_LEVEL: { default: 'info', meaning: 'fatal, error, warn, info, debug, trace or silent' },
  PETSTORE_METRICS: { default: 'on', meaning: 'off keeps no Prometheus metrics and serves no /metrics' },
  PETSTORE_METRICS_PORT: {
    default: undefined,
    meaning: 'a port of its own for /metrics on HOST (default: /metrics on PORT)',
  },
  PETSTORE_WEBHOOK_ALLOW_PRIVATE: {
    default: 'false',
    meaning: 'true lets webhook endpoints be http and inside the network (tests only)',
  },
  PETSTORE_WEBHOOK_POLL_MS: { default: '1000', meaning: 'how often an idle webhook dispatcher looks for events' },
  PETSTORE_WEBHOOK_RETRY_FIRST_MS: {
    default: '5000',
    meaning: 'the wait after a first failed delivery, doubled at each failure up to an hour',
  },
  PETSTORE_WEBHOOK_CONCURRENCY: { default: '256', meaning: 'webhook attempts under way at most, over every endpoint' },
  PETSTORE_WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: {
    default: '4',
    meaning: 'webhook attempts one endpoint may have under way',
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    default: undefined,
    meaning: 'http://collector:4318: export traces over OTLP/HTTP (needs the OpenTelemetry packages)',
  },
} as const satisfies Readonly<Record<string, Setting>>;

/** The name of a variable `petstore serve` reads. */
export type SettingName = keyof typeof SETTINGS;
