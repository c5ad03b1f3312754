import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresStorage, type PostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { quantity } from '../../src/domain/quantity.js';
import type { StockCommand } from '../../src/domain/stock-command.js';
import type { StockWriteResult } from '../../src/domain/stock-outcome.js';
import { aCommand, adjustBy, aPet, setTo } from '../../src/testing/index.js';
import { type CommitCuttingProxy, startCommitCuttingProxy } from '../support/commit-cutting-proxy.js';
import { hasPostgresServer, usePostgresServer } from './postgres-fixture.js';

const AT = Date.UTC(2026, 5, 1, 12, 0, 0);

/** One group: sent in one turn of the event loop, committed by one COMMIT. */
const GROUP: readonly StockCommand[] = [
  aCommand([adjustBy(1n, -2)], { atMs: AT }),
  aCommand([setTo(2n, 7)], { atMs: AT }),
  aCommand([adjustBy(3n, 5)], {
    atMs: AT,
    idempotency: { scope: 'key_a', key: 'retry-1', fingerprint: 'f1', expiresAtMs: AT + 86_400_000 },
  }),
];

/** What each write was answered: its quantities after, or the code of its failure. */
async function answers(writes: readonly Promise<StockWriteResult>[]): Promise<unknown[]> {
  const settled = await Promise.allSettled(writes);
  return settled.map((s) => {
    if (s.status === 'rejected') return (s.reason as { code?: unknown }).code;
    return s.value.ok ? s.value.value.entries.map((e) => e.change.after.quantity) : s.value.error.code;
  });
}

/** The history stored, as pet and quantity after, read past the proxy. */
async function history(url: string): Promise<[string, number][]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<[string, number]>({
      text: 'SELECT pet_id::text, after_quantity FROM stock_changes ORDER BY id',
      rowMode: 'array',
    });
    return rows;
  } finally {
    await client.end();
  }
}

describe.skipIf(!hasPostgresServer)('a group whose answer to COMMIT is lost', () => {
  const postgres = usePostgresServer();
  const opened: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const item of opened.splice(0).reverse()) await item.close();
  });

  /** A store of three pets, and another store of the same database reached through a proxy that can cut. */
  async function throughProxy(): Promise<{ direct: string; proxy: CommitCuttingProxy; store: PostgresStorage }> {
    const direct = await postgres.storage();
    opened.push(direct);
    await direct.pets.addAll([1, 2, 3].map((id) => aPet(id, { quantity: quantity(10) })));
    const proxy = await startCommitCuttingProxy(direct.url);
    opened.push(proxy);
    // Short timeouts, so that a server nobody can reach is given up on within a second or so.
    const store = await openPostgresStorage({ url: proxy.url, statementTimeoutMs: 200, connectTimeoutMs: 300 });
    opened.push(store);
    return { direct: direct.url, proxy, store };
  }

  it('answers each write as committed when PostgreSQL committed it, and the history holds each once', async () => {
    const { direct, proxy, store } = await throughProxy();
    proxy.arm('after-commit');
    const answered = await answers(GROUP.map((command) => store.inventory.write(command)));
    expect(proxy.cuts()).toBe(1);
    expect(answered).toEqual([[8], [7], [15]]);
    expect(await history(direct)).toEqual([
      ['1', 8],
      ['2', 7],
      ['3', 15],
    ]);
    // The keyed write's claim was stored with it: its retry replays, and writes nothing again.
    const retry = await answers([store.inventory.write(GROUP[2] as StockCommand)]);
    expect(retry).toEqual([[15]]);
    expect((await history(direct)).length).toBe(3);
  });

  it('answers as PostgreSQL ended it a group whose COMMIT went in one round with its write (a connection that wrote before)', async () => {
    const { direct, proxy, store } = await throughProxy();
    // A group of the same kinds first: its connection has parsed every statement a group of these sends.
    const warm = GROUP.map((command, index) =>
      aCommand([setTo(BigInt(index + 1), 10)], {
        atMs: AT,
        ...(command.idempotency === undefined ? {} : { idempotency: { ...command.idempotency, key: 'warm-1' } }),
      }),
    );
    expect(await answers(warm.map((command) => store.inventory.write(command)))).toEqual([[10], [10], [10]]);
    proxy.arm('after-commit');
    const answered = await answers(GROUP.map((command) => store.inventory.write(command)));
    // A Bind of the COMMIT parsed by the group before: it went with the write, in the same send (behind a Sync of its own).
    expect(proxy.cutBy()).toEqual(['B']);
    expect(answered).toEqual([[8], [7], [15]]);
    expect((await history(direct)).slice(3)).toEqual([
      ['1', 8],
      ['2', 7],
      ['3', 15],
    ]);
    // The cut connection is gone: a write on its successor first, then one whose COMMIT is cut before it is sent.
    expect(await answers([store.inventory.write(aCommand([setTo(1n, 4)], { atMs: AT }))])).toEqual([[4]]);
    proxy.arm('before-commit');
    const lost = await answers([store.inventory.write(aCommand([setTo(1n, 3)], { atMs: AT }))]);
    expect(proxy.cutBy()).toEqual(['B', 'B']);
    expect(lost).toEqual(['unavailable']);
    expect((await history(direct)).length).toBe(7);
  });

  it('answers the group sent behind a lost COMMIT unavailable: its own COMMIT was never sent, and nothing of it is stored', async () => {
    const { direct, proxy, store } = await throughProxy();
    proxy.arm('after-commit');
    const group = GROUP.map((command) => store.inventory.write(command));
    // Queued while the group is under way: the lane sends it right behind the group's COMMIT, on the
    // connection that is cut once that COMMIT has gone through.
    await new Promise((resolve) => setImmediate(resolve));
    const behind = store.inventory.write(aCommand([setTo(1n, 30)], { atMs: AT }));
    const [answered, answeredBehind] = await Promise.all([answers(group), answers([behind])]);
    expect(proxy.cuts()).toBe(1);
    expect(answered).toEqual([[8], [7], [15]]);
    expect(answeredBehind).toEqual(['unavailable']);
    expect(await history(direct)).toEqual([
      ['1', 8],
      ['2', 7],
      ['3', 15],
    ]);
    // Written again, it goes on a connection of its own.
    expect(await answers([store.inventory.write(aCommand([setTo(1n, 30)], { atMs: AT }))])).toEqual([[30]]);
  });

  it('answers unavailable when the connection was lost before COMMIT reached PostgreSQL, and nothing is stored', async () => {
    const { direct, proxy, store } = await throughProxy();
    proxy.arm('before-commit');
    const answered = await answers(GROUP.map((command) => store.inventory.write(command)));
    expect(proxy.cuts()).toBe(1);
    expect(answered).toEqual(['unavailable', 'unavailable', 'unavailable']);
    expect(await history(direct)).toEqual([]);
  });

  it('answers outcome_unknown, never unavailable, when how the transaction ended cannot be asked', async () => {
    const { direct, proxy, store } = await throughProxy();
    proxy.arm('after-commit', { thenRefuse: true });
    const answered = await answers(GROUP.map((command) => store.inventory.write(command)));
    expect(proxy.cuts()).toBe(1);
    expect(answered).toEqual(['outcome_unknown', 'outcome_unknown', 'outcome_unknown']);
    // It was saved: "unavailable" ("not done, retry") would have been false.
    expect((await history(direct)).length).toBe(3);
  });
});
