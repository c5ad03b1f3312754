import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import type { PostgresOptions } from '../../src/adapters/postgres/postgres-database.js';
import { openPostgresStorage, type PostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import type { Clock } from '../../src/application/ports/clock.js';
import { type PostgresServer, postgresServerAvailable, startPostgresServer } from '../../support/postgres-server.js';

/** False when PostgreSQL is missing outside CI: the suites are then skipped (CI=true throws instead). */
export const hasPostgresServer = postgresServerAvailable();

/**
 * Empties every table of the database at `url`, and restarts its identities. The key audit trail is
 * append-only: its guard is lifted for the emptying alone, in the same transaction.
 */
async function empty(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`BEGIN;
      ALTER TABLE api_key_audit DISABLE TRIGGER api_key_audit_no_truncate;
      TRUNCATE pets, stock_changes, idempotency_records, orders, api_keys, api_key_audit, webhook_endpoints
        RESTART IDENTITY CASCADE;
      ALTER TABLE api_key_audit ENABLE TRIGGER api_key_audit_no_truncate;
      COMMIT`);
  } finally {
    await client.end();
  }
}

export interface PostgresTestbed {
  readonly server: () => PostgresServer;
  /**
   * Storage over a database of the file's server, emptied first, closed after the file's tests if not
   * before. Databases are used again once their storage is closed: making one costs a few hundred
   * milliseconds, emptying one a few.
   */
  storage(
    options?: Omit<PostgresOptions, 'url'> & { readonly clock?: Clock },
  ): Promise<PostgresStorage & { readonly url: string }>;
}

/**
 * Starts one real PostgreSQL server for the tests of the enclosing file or describe (a server per
 * test would cost a second each) and stops it afterwards; each test takes an emptied database.
 * Call it inside a `describe.skipIf(!hasPostgresServer)`.
 */
export function usePostgresServer(): PostgresTestbed {
  let server: PostgresServer | undefined;
  // Databases made so far, and the ones no open storage uses: a test that opens a second store at
  // once (a round trip between two stores) gets a database of its own.
  const free: string[] = [];
  const opened: PostgresStorage[] = [];
  beforeAll(async () => {
    server = await startPostgresServer();
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
      const url = free.pop() ?? (await current().createDatabase());
      const storage = await openPostgresStorage({ url, ...options });
      await empty(url);
      let closed = false;
      const close = async (): Promise<void> => {
        if (closed) return;
        closed = true;
        await storage.close();
        free.push(url);
      };
      const handle = { ...storage, url, close };
      opened.push(handle);
      return handle;
    },
  };
}
