/**
 * The optional peers the service needs, by what its configuration turns on: the few that every start
 * loads, then the store's driver, Redis's and OpenTelemetry's only when a setting asks for them. It
 * reads the raw environment (an empty variable counts as unset, as readConfig has it) and imports
 * nothing, so `petstore` names every missing package at once, before loading any of them.
 */

/** What every start loads: Koa and its parts, the container, validation, logs, metrics, webhooks. */
export const SERVICE_PEERS = [
  'koa',
  '@koa/router',
  'koa-bodyparser',
  'inversify',
  'valibot',
  'pino',
  'prom-client',
  'lossless-json',
  'standardwebhooks',
  'ipaddr.js',
] as const;

/** What OTEL_EXPORTER_OTLP_ENDPOINT loads: the SDK, its exporter and the instrumentations. */
export const TRACING_PEERS = [
  '@opentelemetry/api',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/instrumentation',
  '@opentelemetry/instrumentation-http',
  '@opentelemetry/instrumentation-ioredis',
  '@opentelemetry/instrumentation-pg',
  '@opentelemetry/sdk-node',
] as const;

const isSet = (value: string | undefined): boolean => value !== undefined && value !== '';

/** The store's driver: pg with DATABASE_URL, else better-sqlite3. */
const storePeerOf = (env: Readonly<Record<string, string | undefined>>): string =>
  isSet(env.DATABASE_URL) ? 'pg' : 'better-sqlite3';

/** Every package a start configured by `env` imports. */
export function servicePeersOf(env: Readonly<Record<string, string | undefined>>): readonly string[] {
  return [
    ...SERVICE_PEERS,
    storePeerOf(env),
    ...(isSet(env.REDIS_URL) || isSet(env.REDIS_CLUSTER_NODES) ? ['ioredis'] : []),
    ...(isSet(env.OTEL_EXPORTER_OTLP_ENDPOINT) ? TRACING_PEERS : []),
  ];
}
