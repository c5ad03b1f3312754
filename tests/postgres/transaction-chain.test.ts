import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PostgresDatabase, prepared, type Transaction } from '../../src/adapters/postgres/postgres-database.js';
import { hasPostgresServer, usePostgresServer } from './postgres-fixture.js';

const PID = prepared('chain_test_pid', 'SELECT pg_backend_pid()');
const STORED = prepared('chain_test_stored', 'SELECT coalesce(array_agg(n ORDER BY n), ARRAY[]::int[]) FROM chain_t');
const ADD = prepared('chain_test_add', 'INSERT INTO chain_t VALUES ($1)');
const ADD_CHECKED_AT_COMMIT = prepared('chain_test_add_checked', 'INSERT INTO chain_checked VALUES ($1)');

describe.skipIf(!hasPostgresServer)(
  'transactions chained on one connection, each sent behind the COMMIT before it',
  () => {
    const postgres = usePostgresServer();
    const opened: PostgresDatabase[] = [];
    afterEach(async () => {
      vi.restoreAllMocks();
      for (const db of opened.splice(0)) await db.close();
    });

    /** Writes `n`, and COMMIT in the same turn (as a group's last round does); answers its connection's pid. */
    const writeAndCommit =
      (n: number) =>
      async (tx: Transaction): Promise<number> => {
        const [[pid]] = (await tx.rows<[number]>(PID)) as [[number]];
        await Promise.all([tx.run(ADD, [n]), tx.commit()]);
        return pid;
      };

    /**
     * A pool of `size` connections, with a table whose values are unique. With one, its connection has run
     * (and parsed) the statements of `writeAndCommit`: a write and its COMMIT then go under one Sync
     * unless COMMIT is given its own.
     */
    async function database(size = 1): Promise<PostgresDatabase> {
      const db = new PostgresDatabase({ url: (await postgres.storage()).url, poolSize: size });
      opened.push(db);
      await db.run('CREATE TABLE IF NOT EXISTS chain_t (n int PRIMARY KEY)');
      await db.run(
        'CREATE TABLE IF NOT EXISTS chain_checked (n int, CONSTRAINT chain_checked_n UNIQUE (n) DEFERRABLE INITIALLY DEFERRED)',
      );
      await db.transaction(async (tx) => {
        await tx.run(ADD_CHECKED_AT_COMMIT, [0]);
        return writeAndCommit(0)(tx);
      });
      await db.run('TRUNCATE chain_t, chain_checked');
      return db;
    }

    it('starts the next transaction before the COMMIT is answered, on the same connection, reading what it committed', async () => {
      const db = await database();
      const chain = db.chain();
      const events: string[] = [];
      let next: Promise<{ pid: number; stored: number[] }> | undefined;
      const first = db
        .transaction(writeAndCommit(1), {
          chain,
          onCommitSent: () => {
            next = db.transaction(
              async (tx) => {
                events.push('next sent');
                const [pid, stored] = await Promise.all([tx.rows<[number]>(PID), tx.rows<[number[]]>(STORED)]);
                return { pid: pid[0]?.[0] as number, stored: stored[0]?.[0] as number[] };
              },
              { chain, onCommitSent: () => {} },
            );
          },
        })
        .then((pid) => {
          events.push('first answered');
          return pid;
        });
      const firstPid = await first;
      const after = await (next as Promise<{ pid: number; stored: number[] }>);
      expect(events).toEqual(['next sent', 'first answered']);
      expect(after).toEqual({ pid: firstPid, stored: [1] });
    });

    it('leaves the transaction chained behind one whose COMMIT failed alone: a COMMIT run ends its own transaction', async () => {
      const db = await database();
      const chain = db.chain();
      let next: Promise<number> | undefined;
      // 7 twice in a table checked at COMMIT: the first transaction's COMMIT runs and fails. The one behind
      // it writes 8, waits long enough for anything the failed one might still send, then writes 9 and
      // commits: both or neither, never 9 alone.
      const failed = db.transaction(
        async (tx) => {
          await tx.run(ADD_CHECKED_AT_COMMIT, [7]);
          await Promise.all([tx.run(ADD_CHECKED_AT_COMMIT, [7]), tx.commit()]);
        },
        {
          chain,
          onCommitSent: () => {
            next = db.transaction(
              async (tx) => {
                await tx.run(ADD, [8]);
                await new Promise((resolve) => setTimeout(resolve, 100));
                return writeAndCommit(9)(tx);
              },
              { chain, onCommitSent: () => {} },
            );
          },
        },
      );
      await expect(failed).rejects.toMatchObject({ code: '23505' });
      await next;
      expect(await db.rows<[number[]]>(STORED)).toEqual([[[8, 9]]]);
      expect(await db.rows<[number]>('SELECT count(*)::int FROM chain_checked')).toEqual([[0]]);
    });

    it('rolls back a transaction whose COMMIT was not run, a statement before it failed; the one chained behind it fails unwritten', async () => {
      const db = await database();
      await db.run('INSERT INTO chain_t VALUES (7)');
      const chain = db.chain();
      const query = vi.spyOn(pg.Client.prototype, 'query');
      let next: Promise<number> | undefined;
      // 7 is stored already: the INSERT fails, and PostgreSQL skips the COMMIT sent with it.
      const failed = db.transaction(writeAndCommit(7), {
        chain,
        onCommitSent: () => {
          next = db.transaction(writeAndCommit(8), { chain, onCommitSent: () => {} });
          // It may fail before `failed` is awaited: handled here, checked below.
          next.catch(() => {});
        },
      });
      await expect(failed).rejects.toMatchObject({ code: '23505' });
      // Sent behind it, on the transaction left aborted until the failed one's ROLLBACK.
      await expect(next).rejects.toMatchObject({ code: '25P02' });
      // One ROLLBACK, the failed one's: the one behind it began nothing (a second would end no transaction
      // and draw the server's warning "there is no transaction in progress").
      expect(query.mock.calls.filter(([sql]) => sql === 'ROLLBACK')).toHaveLength(1);
      query.mockRestore();
      expect(await db.rows<[number[]]>(STORED)).toEqual([[[7]]]);
      // Nothing is left open on the connection: the next transaction on it commits.
      await db.transaction(writeAndCommit(10), { chain, onCommitSent: () => {} });
      expect(await db.rows<[number[]]>(STORED)).toEqual([[[7, 10]]]);
      // With nothing behind it, the failed transaction's own ROLLBACK leaves the connection clean.
      await expect(db.transaction(writeAndCommit(7), { chain, onCommitSent: () => {} })).rejects.toMatchObject({
        code: '23505',
      });
      await db.transaction(writeAndCommit(11), { chain, onCommitSent: () => {} });
      expect(await db.rows<[number[]]>(STORED)).toEqual([[[7, 10, 11]]]);
    });

    it('gives the connection back once no transaction of the chain is under way', async () => {
      const db = await database(2);
      const chain = db.chain();
      await db.transaction(writeAndCommit(1), { chain, onCommitSent: () => {} });
      // A pool of two: both can be checked out at once only if the chain gave its connection back.
      const [[a], [b]] = await Promise.all([
        db.transaction(async (tx) => {
          const rows = await tx.rows<[number]>(PID);
          await new Promise((resolve) => setTimeout(resolve, 50));
          return rows[0] as [number];
        }),
        db.transaction(async (tx) => {
          const rows = await tx.rows<[number]>(PID);
          await new Promise((resolve) => setTimeout(resolve, 50));
          return rows[0] as [number];
        }),
      ]);
      expect(a).not.toBe(b);
    });
  },
);
