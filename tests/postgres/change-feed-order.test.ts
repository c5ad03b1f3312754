import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { FEED_START } from '../../src/domain/feed-cursor.js';
import { quantity } from '../../src/domain/quantity.js';
import { aCommand, aPet, setTo } from '../../src/testing/index.js';
import { hasPostgresServer, usePostgresServer } from './postgres-fixture.js';

describe.skipIf(!hasPostgresServer)('the change feed on PostgreSQL, with transactions committing out of order', () => {
  const postgres = usePostgresServer();

  it('holds back a committed change while a transaction that began before it runs, then lists both, by transaction', async () => {
    const storage = await postgres.storage();
    const other = new pg.Client({ connectionString: storage.url });
    await other.connect();
    try {
      await storage.pets.addAll([aPet(1, { quantity: quantity(1) }), aPet(2, { quantity: quantity(1) })]);
      // A writer that took its transaction id first, its change id after another writer's, and commits last.
      await other.query('BEGIN');
      await other.query('SELECT pg_current_xact_id()');
      await storage.inventory.write(aCommand([setTo(1n, 5)]));
      await other.query(
        `INSERT INTO stock_changes (pet_id, before_quantity, before_status, after_quantity, after_status, actor, at_ms)
         VALUES (2, 1, 'available', 9, 'available', 'key_slow', 0)`,
      );
      // Committed, but the slow writer may still commit a change the reader would then have passed.
      expect(await storage.feed.changesAfter(FEED_START, 100)).toEqual([]);
      await other.query('COMMIT');
      const entries = await storage.feed.changesAfter(FEED_START, 100);
      expect(entries?.map(({ change }) => change.actor)).toEqual(['key_slow', 'key_a']);
    } finally {
      await other.end();
      await storage.close();
    }
  });
});
