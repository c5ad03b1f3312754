import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/adapters/postgres/migrations.js';
import { PostgresUnavailableError } from '../../src/adapters/postgres/postgres-database.js';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { aKeyRecord } from '../../src/testing/index.js';
import { eventually } from '../redis/redis-fixture.js';
import { hasPostgresServer, usePostgresServer } from './postgres-fixture.js';

/** Runs `work` with a plain client of the database at `url`, outside the adapter. */
async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

describe.skipIf(!hasPostgresServer)('PostgreSQL storage', () => {
  const postgres = usePostgresServer();

  describe('migrations', () => {
    it('brings a new database to the newest schema once, when several instances open it at once', async () => {
      const url = await postgres.server().createDatabase();
      const opened = await Promise.all([1, 2, 3].map(() => openPostgresStorage({ url })));
      await Promise.all(opened.map((s) => s.close()));
      const rows = await withClient(url, async (c) => (await c.query('SELECT version FROM petstore_schema')).rows);
      expect(rows).toEqual([{ version: MIGRATIONS.length }]);
    });

    it('refuses a database whose schema is newer than the code, naming both versions', async () => {
      const url = await postgres.server().createDatabase();
      await (await openPostgresStorage({ url })).close();
      await withClient(url, (c) => c.query('UPDATE petstore_schema SET version = version + 1'));
      await expect(openPostgresStorage({ url })).rejects.toThrow(
        `has schema version ${MIGRATIONS.length + 1}, newer than the ${MIGRATIONS.length} this program knows`,
      );
    });
  });

  describe('when PostgreSQL cannot answer', () => {
    it('fails a statement that outlasts the statement timeout as unavailable, and serves again after', async () => {
      const storage = await postgres.storage({ statementTimeoutMs: 300 });
      await storage.keys.add({ ...aKeyRecord('key_a'), hash: 'a'.repeat(64) }, 'test');
      await withClient(storage.url, async (blocker) => {
        await blocker.query('BEGIN');
        await blocker.query('LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE');
        const started = performance.now();
        const error = await storage.keys.findById('key_a').catch((e: unknown) => e);
        expect(error).toBeInstanceOf(PostgresUnavailableError);
        expect(error).toMatchObject({ code: 'unavailable' });
        // The timeout, not the lock holder, ended the wait: the lock is still held here.
        expect(performance.now() - started).toBeLessThan(5_000);
        await blocker.query('ROLLBACK');
      });
      expect((await storage.keys.findById('key_a'))?.id).toBe('key_a');
      await storage.close();
    });

    it('fails every call as unavailable while the server is down, reports it, and recovers by itself', async () => {
      const storage = await postgres.storage({ connectTimeoutMs: 500 });
      await storage.keys.add({ ...aKeyRecord('key_a'), hash: 'a'.repeat(64) }, 'test');
      expect(storage.healthy()).toBe(true);
      await postgres.server().kill();
      try {
        await expect(storage.keys.findById('key_a')).rejects.toBeInstanceOf(PostgresUnavailableError);
        await expect(storage.pets.addAll([])).rejects.toBeInstanceOf(PostgresUnavailableError);
        expect(storage.healthy()).toBe(false);
      } finally {
        await postgres.server().start();
      }
      // The probe finds the server back without any call from the ports.
      await eventually('the storage healthy again', () => storage.healthy(), 10_000);
      expect((await storage.keys.findById('key_a'))?.id).toBe('key_a');
      await storage.close();
    });
  });
});
