import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../../src/composition/config.js';

/** The variables deploy/petstore.env sets, as systemd's EnvironmentFile reads them (no quoting used). */
function deployEnvironment(): Record<string, string> {
  const text = readFileSync(join(import.meta.dirname, '..', '..', 'deploy', 'petstore.env'), 'utf8');
  const lines = text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
  return Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

describe('configuration from the environment', () => {
  it('has defaults that serve development on 127.0.0.1:8080 with ./data/petstore.db', () => {
    const c = readConfig({});
    expect(c).toMatchObject({
      env: 'development',
      host: '127.0.0.1',
      port: 8080,
      dbPath: './data/petstore.db',
      synchronous: 'FULL',
      redisUrl: undefined,
      rateLimitFailure: 'open',
      ban: { strikes: 20, strikeWindowMs: 60_000, durationsMs: [300_000, 900_000, 3_600_000] },
      servers: { production: 'http://127.0.0.1:8080/v1', staging: 'http://127.0.0.1:8080/v1' },
      trustProxy: false,
      drainTimeoutMs: 10_000,
    });
  });

  it('reads every variable', () => {
    const c = readConfig({
      PETSTORE_ENV: 'production',
      HOST: '0.0.0.0',
      PORT: '9000',
      PETSTORE_DB: '/var/lib/petstore/db.sqlite',
      PETSTORE_SYNCHRONOUS: 'NORMAL',
      REDIS_URL: 'redis://127.0.0.1:6379/0',
      PETSTORE_RATE_LIMIT_FAILURE: 'closed',
      PETSTORE_BAN_DURATIONS_SECONDS: '60,120',
      PETSTORE_PETS_SUNSET: 'Wed, 30 Jun 2027 00:00:00 GMT',
      PETSTORE_BASE_URL: 'https://api.example.com/v1',
      PETSTORE_STAGING_BASE_URL: 'https://staging.example.com/v1',
      PETSTORE_TRUST_PROXY: 'true',
    });
    expect(c).toMatchObject({
      env: 'production',
      host: '0.0.0.0',
      port: 9000,
      synchronous: 'NORMAL',
      redisUrl: 'redis://127.0.0.1:6379/0',
      rateLimitFailure: 'closed',
      ban: { durationsMs: [60_000, 120_000] },
      servers: { production: 'https://api.example.com/v1', staging: 'https://staging.example.com/v1' },
      trustProxy: true,
    });
    expect(c.sunsetAt.toISOString()).toBe('2027-06-30T00:00:00.000Z');
    expect(c.deprecatedAt.toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  it('refuses a deprecation later than the sunset', () => {
    expect(() => readConfig({ PETSTORE_PETS_DEPRECATED_AT: '2028-01-01T00:00:00Z' })).toThrow(
      /^PETSTORE_PETS_DEPRECATED_AT: must not be later than PETSTORE_PETS_SUNSET$/,
    );
  });

  it('treats an empty variable as unset', () => {
    expect(readConfig({ PORT: '', REDIS_URL: '' })).toMatchObject({ port: 8080, redisUrl: undefined });
  });

  it.each([
    ['PORT', '80a'],
    ['PORT', '70000'],
    ['PETSTORE_ENV', 'prod'],
    ['PETSTORE_SYNCHRONOUS', 'OFF'],
    ['REDIS_URL', 'http://localhost'],
    ['PETSTORE_BAN_DURATIONS_SECONDS', '300,,900'],
    ['PETSTORE_PETS_SUNSET', 'someday'],
    ['PETSTORE_BASE_URL', 'https://api.example.com'],
    ['PETSTORE_TRUST_PROXY', 'yes'],
  ])('stops on %s=%s with a message naming the variable', (name, value) => {
    expect(() => readConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => readConfig({ [name]: value })).toThrow(new RegExp(`^${name}=`));
  });

  it('never prints a Redis URL it refuses, which may hold a password', () => {
    expect(() => readConfig({ REDIS_URL: 'http://default:s3cret@cache.internal:6379' })).toThrow(
      /^REDIS_URL=\(value not shown\): must start with redis:\/\/ or rediss:\/\//,
    );
    expect(() => readConfig({ REDIS_URL: 'http://default:s3cret@cache.internal:6379' })).not.toThrow(/s3cret/);
  });

  describe('integers follow the one integer rule of the service, as a PATCH quantity does', () => {
    it('reads a whole number by its exact value, however it is spelt', () => {
      expect(
        readConfig({
          PORT: '8080.0',
          PETSTORE_BAN_STRIKES: '2e1',
          PETSTORE_DRAIN_TIMEOUT_MS: '-0',
          PETSTORE_BAN_DURATIONS_SECONDS: '3e2,9.0e2',
        }),
      ).toMatchObject({ port: 8080, ban: { strikes: 20, durationsMs: [300_000, 900_000] }, drainTimeoutMs: 0 });
    });

    it.each([
      ['PORT', '4.99999999999999999999'],
      ['PORT', '8080.5'],
      ['PORT', '1e400'],
      ['PORT', '99999999999999999999'],
      ['PETSTORE_BAN_STRIKES', '0x10'],
      ['PETSTORE_BAN_DURATIONS_SECONDS', '300,0.5'],
    ])('stops on %s=%s, which is no whole number in range', (name, value) => {
      expect(() => readConfig({ [name]: value })).toThrow(new RegExp(`^${name}="${value}": must be`));
    });
  });
});

describe('the connection limits', () => {
  it('default to 10 s for the headers, 30 s for a request, 5 s of keep-alive, 4,000 connections, 256 an address (an idle one of them given up after 1 s), 3 s for the first byte, 32 pipelined, a 10 s ban past them and 30 s without traffic', () => {
    expect(readConfig({}).connectionLimits).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 4_000,
      maxConnectionsPerAddress: 256,
      idleConnectionGraceMs: 1_000,
      firstByteTimeoutMs: 3_000,
      maxPipelinedRequests: 32,
      pipeliningBanMs: 10_000,
      inactivityTimeoutMs: 30_000,
    });
  });

  it('are read from their variables', () => {
    const c = readConfig({
      PETSTORE_HEADERS_TIMEOUT_MS: '2000',
      PETSTORE_REQUEST_TIMEOUT_MS: '4000',
      PETSTORE_KEEP_ALIVE_TIMEOUT_MS: '1000',
      PETSTORE_MAX_CONNECTIONS: '100',
      PETSTORE_MAX_CONNECTIONS_PER_ADDRESS: '10',
      PETSTORE_IDLE_CONNECTION_GRACE_MS: '250',
      PETSTORE_FIRST_BYTE_TIMEOUT_MS: '500',
      PETSTORE_MAX_PIPELINED_REQUESTS: '0',
      PETSTORE_PIPELINING_BAN_MS: '0',
      PETSTORE_INACTIVITY_TIMEOUT_MS: '7000',
    });
    expect(c.connectionLimits).toEqual({
      headersTimeoutMs: 2_000,
      requestTimeoutMs: 4_000,
      keepAliveTimeoutMs: 1_000,
      maxConnections: 100,
      maxConnectionsPerAddress: 10,
      idleConnectionGraceMs: 250,
      firstByteTimeoutMs: 500,
      maxPipelinedRequests: 0,
      pipeliningBanMs: 0,
      inactivityTimeoutMs: 7_000,
    });
  });

  it('refuse a request timeout shorter than the headers timeout', () => {
    expect(() => readConfig({ PETSTORE_HEADERS_TIMEOUT_MS: '5000', PETSTORE_REQUEST_TIMEOUT_MS: '4000' })).toThrow(
      /^PETSTORE_REQUEST_TIMEOUT_MS: must not be shorter than PETSTORE_HEADERS_TIMEOUT_MS$/,
    );
  });

  it.each([
    ['PETSTORE_HEADERS_TIMEOUT_MS', '0'],
    ['PETSTORE_REQUEST_TIMEOUT_MS', '10s'],
    ['PETSTORE_KEEP_ALIVE_TIMEOUT_MS', '-1'],
    ['PETSTORE_MAX_CONNECTIONS', '0'],
  ])('stop on %s=%s with a message naming the variable', (name, value) => {
    expect(() => readConfig({ [name]: value })).toThrow(new RegExp(`^${name}=`));
  });

  it('accepts deploy/petstore.env as shipped, and reads what it sets', () => {
    const env = deployEnvironment();
    expect(Object.keys(env)).toContain('PETSTORE_WEBHOOK_ALLOW_PRIVATE');
    const c = readConfig({ ...env, PORT: '8081' });
    expect(c).toMatchObject({
      env: 'production',
      databaseUrl: env.DATABASE_URL,
      redisUrl: env.REDIS_URL,
      trustProxy: true,
      postgres: { poolSize: 10, statementTimeoutMs: 5_000, connectTimeoutMs: 2_000 },
      connectionLimits: { maxConnectionsPerAddress: 4_000, pipeliningBanMs: 0 },
      drainTimeoutMs: 10_000,
      webhooks: { allowPrivate: false, pollMs: 1_000, retryFirstDelayMs: 5_000 },
    });
  });
});
