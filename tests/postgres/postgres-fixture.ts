import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import type { PostgresOptions } from '../../src/adapters/postgres/postgres-database.js';
import { openPostgresStorage, type PostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { type PostgresServer, postgresServerAvailable, startPostgresServer } from '../support/postgres-server.js';

/** False when PostgreSQL is missing outside CI: the suites are then skipped (CI=true throws instead). */
export const hasPostgresServer = postgresServerAvailable();

/** Empties every table of the database at `url`, and restarts its identities. */
async function empty(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('TRUNCATE pets, stock_changes, idempotency_records, orders, api_keys RESTART IDENTITY CASCADE');
  } finally {
    await client.end();
  }
}

export interface PostgresTestbed {
  readonly server: () => PostgresServer;
  /**
   * Storage over the file's database, emptied first, closed after the file's tests if not before. One
   * database emptied between tests: making a database costs a few hundred milliseconds, emptying one
   * a few.
   */
  storage(options?: Omit<PostgresOptions, 'url'>): Promise<PostgresStorage & { readonly url: string }>;
}

/**
 * Starts one real PostgreSQL server for the tests of the enclosing file or describe (a server per
 * test would cost a second each) and stops it afterwards; each test takes a database of its own.
 * Call it inside a `describe.skipIf(!hasPostgresServer)`.
 */
export function usePostgresServer(): PostgresTestbed {
  let server: PostgresServer | undefined;
  let url = '';
  const opened: PostgresStorage[] = [];
  beforeAll(async () => {
    server = await startPostgresServer();
    url = await server.createDatabase();
  });
  afterAll(async () => {
    for (const storage of opened) await storage.close().catch(() => {});
    await server?.stop();
  });
  const current = (): PostgresServer => {
    if (server === undefined) throw new Error('the PostgreSQL server starts in beforeAll');
    return server;
  };
  return {
    server: current,
    async storage(options = {}) {
      const storage = await openPostgresStorage({ url, ...options });
      await empty(url);
      let closed = false;
      const close = async (): Promise<void> => {
        if (closed) return;
        closed = true;
        await storage.close();
      };
      const handle = { ...storage, url, close };
      opened.push(handle);
      return handle;
    },
  };
}
