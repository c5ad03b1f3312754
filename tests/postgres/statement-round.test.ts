import { afterEach, describe, expect, it } from 'vitest';
import { PostgresDatabase, prepared } from '../../src/adapters/postgres/postgres-database.js';
import { hasPostgresServer, usePostgresServer } from './postgres-fixture.js';

const ONE = prepared('round_test_one', 'SELECT $1::int + 1');

describe.skipIf(!hasPostgresServer)("a transaction's statements of one turn, under one Sync", () => {
  const postgres = usePostgresServer();
  const opened: PostgresDatabase[] = [];
  afterEach(async () => {
    for (const db of opened.splice(0)) await db.close();
  });

  /** A pool of one connection, which has parsed ONE (and BEGIN and COMMIT) once a transaction has run. */
  async function database(): Promise<PostgresDatabase> {
    const db = new PostgresDatabase({ url: (await postgres.storage()).url, poolSize: 1 });
    opened.push(db);
    await db.transaction((tx) => tx.rows(ONE, [1]));
    return db;
  }

  it('answers each statement in order, each seeing what the one before it wrote', async () => {
    const db = await database();
    const answered = await db.transaction(async (tx) => {
      await tx.run('CREATE TEMPORARY TABLE round_t (n int) ON COMMIT DROP');
      return Promise.all([
        tx.run('INSERT INTO round_t VALUES ($1), ($2)', [1, 2]),
        tx.rows<[number]>('SELECT sum(n)::int FROM round_t WHERE n > $1', [0]),
        tx.rows<[number]>(ONE, [41]),
      ]);
    });
    expect(answered).toEqual([2, [[3]], [[42]]]);
  });

  it('answers the statements after a failed one with its failure, and those before it with their results', async () => {
    const db = await database();
    const settled: PromiseSettledResult<unknown>[] = [];
    await db
      .transaction(async (tx) => {
        const sent = [tx.rows(ONE, [1]), tx.rows('SELECT $1::int / 0', [1]), tx.rows(ONE, [2])];
        settled.push(...(await Promise.allSettled(sent)));
        throw new Error('rolled back');
      })
      .catch(() => {});
    const [first, failed, after] = settled;
    expect(first).toEqual({ status: 'fulfilled', value: [[2]] });
    const code = (result: PromiseSettledResult<unknown> | undefined): unknown =>
      result?.status === 'rejected' ? (result.reason as { code?: unknown }).code : undefined;
    expect(code(failed)).toBe('22012');
    // Skipped by PostgreSQL up to the Sync, not run in an aborted transaction (25P02): one round.
    expect(code(after)).toBe('22012');
    // The connection is in use again after the round's failure and the rollback.
    expect(await db.transaction((tx) => tx.rows(ONE, [9]))).toEqual([[10]]);
  });

  it('sends text without values as a simple query, which may hold several commands', async () => {
    const db = await database();
    const answered = await db.transaction((tx) =>
      Promise.all([tx.run('SELECT 1; SELECT 2'), tx.rows<[number]>(ONE, [4])]),
    );
    expect(answered[1]).toEqual([[5]]);
  });
});
