import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import type { StockCommand } from '../../src/domain/stock-command.js';
import { aCommand, adjustBy, aPet, setTo } from '../../src/testing/index.js';
import { eventually } from '../redis/redis-fixture.js';
import { hasPostgresServer, usePostgresServer } from './postgres-fixture.js';

const AT = Date.UTC(2026, 5, 1, 12, 0, 0);

/** A session of its own on the database, as another instance of the service has. */
async function otherSession(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

/** The changes stored, in id order: pet, quantity after, and the transaction that wrote each. */
async function changes(client: pg.Client): Promise<{ pet: string; after: number; txid: string }[]> {
  const { rows } = await client.query<{ pet: string; after: number; txid: string }>(
    'SELECT pet_id::text AS pet, after_quantity AS after, txid::text FROM stock_changes ORDER BY id',
  );
  return rows;
}

const sessionsWaiting = async (client: pg.Client): Promise<boolean> => {
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::integer AS n FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
  );
  return (rows[0]?.n ?? 0) > 0;
};

describe.skipIf(!hasPostgresServer)('stock writes over PostgreSQL, committed in groups', () => {
  const postgres = usePostgresServer();

  it('decides the commands of one pet sent together in order, in one transaction', async () => {
    const storage = await postgres.storage();
    await storage.pets.addAll([aPet(1, { quantity: quantity(10) })]);
    const other = await otherSession(storage.url);
    try {
      // Sent in one turn of the event loop: one group. The set is conditional on the version the two
      // adjustments before it leave, which only an in-order decision on what they wrote can match.
      const commands: StockCommand[] = [
        aCommand([adjustBy(1n, -1)], { atMs: AT }),
        aCommand([adjustBy(1n, -2)], { atMs: AT }),
        aCommand([{ ...setTo(1n, 20), ifVersion: [3] }], { atMs: AT }),
        aCommand([adjustBy(1n, 5)], { atMs: AT }),
      ];
      const results = await Promise.all(commands.map((command) => storage.inventory.write(command)));
      expect(
        results.map((r) => (r.ok ? r.value.entries.map((e) => [e.change.after.quantity, e.version]) : r.error.code)),
      ).toEqual([[[9, 2]], [[7, 3]], [[20, 4]], [[25, 5]]]);
      const stored = await changes(other);
      expect(stored.map((c) => c.after)).toEqual([9, 7, 20, 25]);
      expect(new Set(stored.map((c) => c.txid)).size).toBe(1);
      expect(await storage.inventory.get(petId(1n))).toMatchObject({ item: { quantity: 25 }, version: 5 });
    } finally {
      await other.end();
      await storage.close();
    }
  });

  it("lets a command refused in a group, or conflicting with another instance's write, fail alone while the others commit", async () => {
    const storage = await postgres.storage();
    await storage.pets.addAll([aPet(1, { quantity: quantity(10) }), aPet(2, { quantity: quantity(10) })]);
    const other = await otherSession(storage.url);
    try {
      // Another instance holds pet 1 and moves it to version 2 while the group waits for it.
      await other.query('BEGIN');
      await other.query('UPDATE pets SET quantity = 4, version = version + 1 WHERE id = 1');
      const sent = [
        aCommand([{ ...setTo(1n, 3), ifVersion: [1] }], { atMs: AT }),
        aCommand([adjustBy(2n, 1)], { atMs: AT }),
        aCommand([adjustBy(1n, -1)], { atMs: AT }),
        aCommand([setTo(99n, 1)], { atMs: AT }),
        aCommand([setTo(2n, 1), setTo(2n, 2)], { atMs: AT }),
        aCommand([adjustBy(2n, -20)], { atMs: AT }),
        aCommand([setTo(2n, 30)], { atMs: AT }),
      ].map((command) => storage.inventory.write(command).catch((error: unknown) => error));
      await eventually('the group waits for the row', () => sessionsWaiting(other));
      await other.query('COMMIT');
      const [conflicting, adjusted, onNewVersion, unknown, malformed, insufficient, set] = await Promise.all(sent);
      expect(conflicting).toMatchObject({ ok: false, error: { code: 'precondition_failed' } });
      expect(adjusted).toMatchObject({
        ok: true,
        value: { entries: [{ change: { after: { quantity: 11 } }, version: 2 }] },
      });
      expect(onNewVersion).toMatchObject({
        ok: true,
        value: { entries: [{ change: { after: { quantity: 3 } }, version: 3 }] },
      });
      expect(unknown).toMatchObject({ ok: false, error: { code: 'pet_not_found' } });
      expect(malformed).toBeInstanceOf(RangeError);
      expect(insufficient).toMatchObject({ ok: false, error: { code: 'insufficient_stock' } });
      expect(set).toMatchObject({
        ok: true,
        value: { entries: [{ change: { after: { quantity: 30 } }, version: 3 }] },
      });
      const stored = await changes(other);
      expect(stored.map((c) => [c.pet, c.after])).toEqual([
        ['2', 11],
        ['1', 3],
        ['2', 30],
      ]);
      expect(new Set(stored.map((c) => c.txid)).size).toBe(1);
    } finally {
      await other.end();
      await storage.close();
    }
  });

  it('tells the size of each group committed, and a lane at a time takes what arrived meanwhile as one', async () => {
    const sizes: number[] = [];
    const storage = await postgres.storage({ writeLanes: 1, onGroupCommit: (writes) => sizes.push(writes) });
    await storage.pets.addAll([aPet(1, { quantity: quantity(1000) }), aPet(2, { quantity: quantity(1000) })]);
    try {
      // One turn: one group of 3. Then, while it is under way on the one lane, 5 more: the next group.
      const first = [1n, 2n, 1n].map((id) => storage.inventory.write(aCommand([adjustBy(id, -1)], { atMs: AT })));
      await new Promise((resolve) => setImmediate(resolve));
      const second = Array.from({ length: 5 }, (_, i) =>
        storage.inventory.write(aCommand([adjustBy(i % 2 === 0 ? 1n : 2n, 1)], { atMs: AT })),
      );
      const results = await Promise.all([...first, ...second]);
      expect(results.every((r) => r.ok)).toBe(true);
      expect(sizes).toEqual([3, 5]);
      expect(await storage.inventory.get(petId(1n))).toMatchObject({ item: { quantity: 1001 }, version: 6 });
    } finally {
      await storage.close();
    }
  });

  it('writes again, on a connection of its own, a group sent on its lane behind a group whose statement failed', async () => {
    const storage = await postgres.storage({ writeLanes: 1 });
    await storage.pets.addAll([aPet(1, { quantity: quantity(10) }), aPet(2, { quantity: quantity(10) })]);
    const other = await otherSession(storage.url);
    try {
      // A rule of the database the core does not know: the write that breaks it fails its group's statement.
      await other.query("ALTER TABLE stock_changes ADD CONSTRAINT no_poison CHECK (reason IS DISTINCT FROM 'poison')");
      // A group of the same kind first: the lane's connection has parsed its statements, so a group's
      // write and COMMIT go under one Sync.
      await Promise.all([1n, 2n].map((id) => storage.inventory.write(aCommand([setTo(id, 10)], { atMs: AT }))));
      const first = [
        storage.inventory.write(aCommand([adjustBy(1n, -1, 'poison')], { atMs: AT })),
        storage.inventory.write(aCommand([adjustBy(2n, 1)], { atMs: AT })),
      ].map((written) => written.catch((error: unknown) => error));
      // Queued while the first group is under way: the lane's next group, sent behind its COMMIT, which
      // PostgreSQL skips once the statement before it failed. That group then fails on the aborted
      // transaction, through no fault of its own.
      await new Promise((resolve) => setImmediate(resolve));
      const behind = storage.inventory
        .write(aCommand([adjustBy(1n, 5)], { atMs: AT }))
        .catch((error: unknown) => error);
      const [poisoned, adjusted] = await Promise.all(first);
      expect(poisoned).toMatchObject({ message: expect.stringContaining('no_poison') });
      expect(adjusted).toMatchObject({ ok: true, value: { entries: [{ change: { after: { quantity: 11 } } }] } });
      expect(await behind).toMatchObject({ ok: true, value: { entries: [{ change: { after: { quantity: 15 } } }] } });
      expect(
        (await changes(other))
          .slice(2)
          .map((c) => [c.pet, c.after])
          .sort(),
      ).toEqual([
        ['1', 15],
        ['2', 11],
      ]);
    } finally {
      await other.end();
      await storage.close();
    }
  });

  it('keeps a hot pet exact: 200 adjustments at once, each version once, in fewer transactions', async () => {
    const storage = await postgres.storage();
    await storage.pets.addAll([aPet(1, { quantity: quantity(1000) })]);
    const other = await otherSession(storage.url);
    try {
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          storage.inventory.write(aCommand([adjustBy(1n, i % 2 === 0 ? -3 : 1)], { atMs: AT })),
        ),
      );
      const versions = results.map((r) => (r.ok ? r.value.entries[0]?.version : -1));
      expect(new Set(versions).size).toBe(200);
      expect(Math.max(...(versions as number[]))).toBe(201);
      expect(await storage.inventory.get(petId(1n))).toMatchObject({ item: { quantity: 800 }, version: 201 });
      const stored = await changes(other);
      expect(stored).toHaveLength(200);
      expect(new Set(stored.map((c) => c.txid)).size).toBeLessThan(200);
    } finally {
      await other.end();
      await storage.close();
    }
  });
});
