import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStorage, type SqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { petId } from '../../src/domain/pet-id.js';
import { aPet } from '../../src/testing/index.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';
import { type ApiResponse, type HttpFixture, jsonWith, startHttpFixture } from './support/http-fixture.js';

const ENTERPRISE = { perMinute: 100_000, perDay: 1_000_000 };

/** A store to serve: the fixture's own memory store, or SQLite over a real file. */
interface StoreUnderTest {
  open(): Promise<SqliteStorage | undefined>;
  close(): Promise<void>;
}

const memory = (): StoreUnderTest => ({ open: async () => undefined, close: async () => {} });

function sqliteFile(): StoreUnderTest {
  let temp: TempDatabase | undefined;
  let storage: SqliteStorage | undefined;
  return {
    async open() {
      temp = await tempDatabase();
      storage = openSqliteStorage({ path: temp.path });
      return storage;
    },
    async close() {
      await storage?.close();
      await temp?.remove();
    },
  };
}

describe.each([
  ['memory', memory],
  ['SQLite, a real file', sqliteFile],
])('concurrent PATCHes of one pet over %s', (_, makeStore) => {
  let store: StoreUnderTest;
  let fx: HttpFixture;
  let key: string;
  beforeEach(async () => {
    store = makeStore();
    const storage = await store.open();
    fx = await startHttpFixture(storage === undefined ? {} : { storage });
    key = await fx.bearer('enterprise', ENTERPRISE);
    await fx.addPets(aPet(1));
  });
  afterEach(async () => {
    await fx.close();
    await store.close();
  });

  const patch = (body: string, headers: Record<string, string>) =>
    fx.call('/v1/inventory/1', { method: 'PATCH', headers: { ...jsonWith(key), ...headers }, body });
  const changes = async () => (await fx.changes.history(petId(1n), { limit: 1_000 })) ?? [];
  const count = (answers: readonly ApiResponse[], status: number) => answers.filter((a) => a.status === status).length;

  it('lets exactly one of 100 with the same If-Match through: one 200, 99 412, one new history entry', async () => {
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => patch(`{"quantity":${i + 10}}`, { 'if-match': '"1"' })),
    );
    expect(count(answers, 200)).toBe(1);
    expect(count(answers, 412)).toBe(99);
    const winner = answers.find((a) => a.status === 200) as ApiResponse;
    expect(winner.headers.get('etag')).toBe('"2"');
    for (const refused of answers.filter((a) => a.status === 412)) expect(refused.headers.get('etag')).toBe('"2"');
    const history = await changes();
    expect(history).toHaveLength(1);
    expect(JSON.parse(winner.text)).toMatchObject({ quantity: history[0]?.after.quantity });
  });

  it('writes 50 identical PATCHes with one Idempotency-Key once: one first 200, the rest replayed 200 or 409', async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => patch('{"quantity":77}', { 'idempotency-key': 'one-write' })),
    );
    expect(count(answers, 200) + count(answers, 409)).toBe(50);
    const successes = answers.filter((a) => a.status === 200);
    expect(successes.filter((a) => a.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    for (const success of successes) {
      expect(success.text).toBe('{"petId":1,"quantity":77,"reserved":0,"available":77,"status":"available"}');
      expect(success.headers.get('etag')).toBe('"2"');
    }
    expect(await changes()).toHaveLength(1);
    const later = await patch('{"quantity":77}', { 'idempotency-key': 'one-write' });
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(await changes()).toHaveLength(1);
  });
});
