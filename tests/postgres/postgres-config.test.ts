import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../../src/composition/config.js';

describe('the PostgreSQL settings', () => {
  it('leave storage on SQLite unless DATABASE_URL is set, with a pool of 10 and 5 s statements', () => {
    expect(readConfig({})).toMatchObject({
      databaseUrl: undefined,
      postgres: { poolSize: 10, statementTimeoutMs: 5_000, connectTimeoutMs: 2_000, writeLanes: 1 },
    });
  });

  it('read DATABASE_URL and the pool and timeouts', () => {
    const config = readConfig({
      DATABASE_URL: 'postgresql://petstore:secret@db.internal:5432/petstore',
      PETSTORE_PG_POOL_SIZE: '25',
      PETSTORE_PG_STATEMENT_TIMEOUT_MS: '1500',
      PETSTORE_PG_CONNECT_TIMEOUT_MS: '800',
      PETSTORE_PG_WRITE_LANES: '3',
    });
    expect(config).toMatchObject({
      databaseUrl: 'postgresql://petstore:secret@db.internal:5432/petstore',
      postgres: { poolSize: 25, statementTimeoutMs: 1_500, connectTimeoutMs: 800, writeLanes: 3 },
    });
  });

  it('never print the URL, which may hold a password, when it is refused', () => {
    expect(() => readConfig({ DATABASE_URL: 'mysql://petstore:secret@db/petstore' })).toThrow(
      /^DATABASE_URL=\(value not shown\): must be a PostgreSQL URL/,
    );
  });

  it.each([
    ['DATABASE_URL', 'mysql://db/petstore'],
    ['DATABASE_URL', 'postgres://'],
    ['DATABASE_URL', './petstore.db'],
    ['PETSTORE_PG_POOL_SIZE', '0'],
    ['PETSTORE_PG_STATEMENT_TIMEOUT_MS', '5s'],
    ['PETSTORE_PG_CONNECT_TIMEOUT_MS', '-1'],
    ['PETSTORE_PG_WRITE_LANES', '0'],
    ['PETSTORE_PG_WRITE_LANES', '101'],
  ])('stop on %s=%s with a message naming the variable', (name, value) => {
    expect(() => readConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => readConfig({ [name]: value })).toThrow(new RegExp(`^${name}=`));
  });
});
