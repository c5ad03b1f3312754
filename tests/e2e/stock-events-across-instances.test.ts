import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { NodeKeyCrypto } from '../../src/adapters/system/node-key-crypto.js';
import { systemClock } from '../../src/adapters/system/system-clock.js';
import type { ApiKeyStore } from '../../src/application/ports/api-key-store.js';
import type { PetCatalog } from '../../src/application/ports/pet-catalog.js';
import type { WebhookStore } from '../../src/application/ports/webhook-store.js';
import { IssueApiKey } from '../../src/application/use-cases/issue-api-key.js';
import { rateLimitPolicy } from '../../src/domain/plan.js';
import { quantity } from '../../src/domain/quantity.js';
import { STOCK_EVENT_TYPES } from '../../src/domain/stock-event.js';
import { deliveryIdOf } from '../../src/domain/webhook-endpoint.js';
import { aPet } from '../../src/testing/index.js';
import { type PostgresServer, startPostgresServer } from '../../support/postgres-server.js';
import { type ServiceProcess, startService } from '../../support/service-process.js';
import { tempDatabase } from '../../support/temp-database.js';
import { webhookAdminOf } from '../../support/webhook-admin.js';
import { hasPostgresServer } from '../postgres/postgres-fixture.js';
import { type Received, startWebhookReceiver, verify } from '../support/webhook-receiver.js';

const PETS = 20;

/** A store the instances share, stocked with PETS pets of 1,000 each, with a key without practical limits. */
interface StockedStore {
  readonly key: string;
  /** The environment of an instance on it, with webhooks to 127.0.0.1 allowed and quick retries. */
  readonly env: Record<string, string>;
  /** The store's webhooks, opened by the test itself. */
  readonly webhooks: WebhookStore;
  /** The id of every change recorded, ascending, as decimal text. */
  changeIds(): Promise<string[]>;
  close(): Promise<void>;
}

const WEBHOOK_ENV = {
  PETSTORE_ENV: 'production',
  PETSTORE_WEBHOOK_ALLOW_PRIVATE: 'true',
  PETSTORE_WEBHOOK_POLL_MS: '50',
  PETSTORE_WEBHOOK_RETRY_FIRST_MS: '100',
};

async function stock(storage: { readonly pets: PetCatalog; readonly keys: ApiKeyStore }): Promise<string> {
  await storage.pets.addAll(Array.from({ length: PETS }, (_, i) => aPet(i + 1, { quantity: quantity(1_000) })));
  const crypto = new NodeKeyCrypto();
  const issued = await new IssueApiKey(storage.keys, crypto, crypto, systemClock).execute({
    plan: 'enterprise',
    limits: rateLimitPolicy(1_000_000, 100_000_000),
  });
  return issued.key;
}

async function postgresStore(server: PostgresServer): Promise<StockedStore> {
  const url = await server.createDatabase();
  const storage = await openPostgresStorage({ url });
  const key = await stock(storage);
  return {
    key,
    env: { DATABASE_URL: url, ...WEBHOOK_ENV },
    webhooks: storage.webhooks,
    async changeIds() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ id: string }>(
          'SELECT id::text AS id FROM stock_changes ORDER BY stock_changes.id',
        );
        return rows.map((row) => row.id);
      } finally {
        await client.end();
      }
    },
    close: () => storage.close(),
  };
}

async function sqliteStore(): Promise<StockedStore> {
  const temp = await tempDatabase();
  const storage = openSqliteStorage({ path: temp.path });
  const key = await stock(storage);
  return {
    key,
    env: { PETSTORE_DB: temp.path, ...WEBHOOK_ENV },
    webhooks: storage.webhooks,
    async changeIds() {
      const db = new Database(temp.path, { readonly: true });
      try {
        return db
          .prepare<[], { seq: number }>('SELECT seq FROM stock_changes ORDER BY seq')
          .all()
          .map((r) => String(r.seq));
      } finally {
        db.close();
      }
    },
    close: async () => {
      await storage.close();
      await temp.remove();
    },
  };
}

const call = (instance: ServiceProcess, key: string, path: string, init: RequestInit = {}) =>
  fetch(`${instance.url}/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
  });

const setStock = async (instance: ServiceProcess, key: string, petId: number, q: number): Promise<void> => {
  const response = await call(instance, key, `/inventory/${petId}`, { method: 'PATCH', body: `{"quantity":${q}}` });
  expect(response.status).toBe(200);
};

const eventOf = (r: Received): { type: string; data: { petId: number; quantityAfter: number } } => JSON.parse(r.body);

/** The events and the feed over `kind`, with two instances sharing one store. */
function describeStockEvents(kind: string, make: () => Promise<StockedStore>): void {
  describe(`stock events through two instances sharing one ${kind}`, () => {
    let store: StockedStore;
    let key: string;
    const instances: ServiceProcess[] = [];

    beforeAll(async () => {
      store = await make();
      key = store.key;
      instances.push(...(await Promise.all([startService(store.env), startService(store.env)])));
    }, 60_000);

    afterAll(async () => {
      await Promise.all(instances.map((instance) => instance.stop()));
      await store?.close();
    });

    it('delivers each event signed, retries a 500 with one webhook-id, keeps a pet’s order, and crosses each line once', async () => {
      const receiver = await startWebhookReceiver();
      const added = await webhookAdminOf(store.webhooks, systemClock, true).addWebhook.execute({
        url: receiver.url,
        events: STOCK_EVENT_TYPES,
        lowStockThreshold: 5,
      });
      if (!added.ok) throw new Error(added.error);
      let first: string | undefined;
      receiver.answer = (id, earlier) => {
        first ??= id;
        return id === first && earlier < 3 ? 500 : 200;
      };
      try {
        const [a, b] = instances as [ServiceProcess, ServiceProcess];
        // One after the other, through both instances: the changes' order is known.
        const quantities = [6, 4, 3, 8, 2, 0, 5];
        for (const [i, q] of quantities.entries()) await setStock(i % 2 === 0 ? a : b, key, 1, q);
        const expected = [
          ['inventory.updated', 6],
          ['inventory.updated', 4],
          ['inventory.low_stock', 4],
          ['inventory.updated', 3],
          ['inventory.updated', 8],
          ['inventory.updated', 2],
          ['inventory.low_stock', 2],
          ['inventory.updated', 0],
          ['inventory.out_of_stock', 0],
          ['inventory.updated', 5],
          ['inventory.back_in_stock', 5],
        ];
        await receiver.until((all) => all.filter((r) => r.status === 200).length >= expected.length);
        const delivered = receiver.received.filter((r) => r.status === 200);
        expect(delivered.map((r) => [eventOf(r).type, eventOf(r).data.quantityAfter])).toEqual(expected);
        expect(new Set(delivered.map((r) => r.id)).size).toBe(expected.length);
        const ofFirst = receiver.received.filter((r) => r.id === first);
        expect(ofFirst.map((r) => r.status)).toEqual([500, 500, 500, 200]);
        // Nothing of the pet went out while its first event was failing.
        expect(receiver.received.slice(0, 4).every((r) => r.id === first)).toBe(true);
        // Each instance counts its own attempts; together they made every one, and the outbox is empty.
        const counted = (text: string, type: string, outcome: string): number =>
          Number(
            new RegExp(
              `^petstore_webhook_deliveries_total\\{event_type="${type}",outcome="${outcome}"\\} (\\d+)$`,
              'm',
            ).exec(text)?.[1] ?? 0,
          );
        // The last attempt is recorded (and counted) just after its answer, and /metrics is rendered at most
        // once a second: scrape until the counts settle.
        let scrapes: string[] = [];
        const total = (type: string, outcome: string) =>
          scrapes.reduce((n, text) => n + counted(text, type, outcome), 0);
        for (let round = 0; round < 40 && total('inventory.updated', 'delivered') < 7; round += 1) {
          if (round > 0) await new Promise((resolve) => setTimeout(resolve, 250));
          scrapes = await Promise.all([a, b].map(async (instance) => (await fetch(`${instance.url}/metrics`)).text()));
        }
        expect(total('inventory.updated', 'retrying')).toBe(3);
        expect(total('inventory.updated', 'delivered')).toBe(7);
        expect(total('inventory.low_stock', 'delivered')).toBe(2);
        for (const text of scrapes) {
          expect(text).toMatch(/^petstore_outbox_depth \d+$/m);
          expect(text).toMatch(/^petstore_outbox_oldest_event_age_seconds [\d.]+$/m);
        }
        // The receiver counts an answer before the instance that sent it has marked the delivery done.
        await expect.poll(() => store.webhooks.stats(), { timeout: 10_000 }).toEqual({ depth: 0, oldestAtMs: null });
        for (const delivery of receiver.received) {
          expect(verify(added.value.secret, delivery)).toMatchObject({ data: { petId: 1 } });
          expect(() =>
            verify(added.value.secret, {
              ...delivery,
              body: delivery.body.replace(/"quantityAfter":\d+/, '"quantityAfter":99'),
            }),
          ).toThrow();
        }
      } finally {
        await store.webhooks.removeEndpoint(added.value.endpoint.id);
        await receiver.close();
      }
    }, 60_000);

    it('lists every change exactly once to a feed poller while 8 writers write through both instances', async () => {
      const [a, b] = instances as [ServiceProcess, ServiceProcess];
      let writing = true;
      const writers = Array.from({ length: 8 }, async (_, w) => {
        for (let i = 0; i < 25; i += 1) {
          const response = await call(i % 2 === 0 ? a : b, key, `/inventory/${(w % PETS) + 2}/adjustments`, {
            method: 'POST',
            body: '{"delta":1}',
          });
          expect(response.status).toBe(200);
        }
      });
      const seen: bigint[] = [];
      let cursor: string | undefined;
      const poll = async (instance: ServiceProcess): Promise<number> => {
        const query = cursor === undefined ? 'limit=37' : `after=${cursor}&limit=37`;
        const response = await call(instance, key, `/inventory/changes?${query}`);
        expect(response.status).toBe(200);
        const page = JSON.parse((await response.text()).replace(/"id":(\d+)/g, '"id":"$1"')) as {
          id: string;
          cursor: string;
        }[];
        seen.push(...page.map((change) => BigInt(change.id)));
        cursor = page[page.length - 1]?.cursor ?? cursor;
        return page.length;
      };
      const poller = (async () => {
        for (let round = 0; writing; round += 1) await poll(round % 2 === 0 ? a : b);
      })();
      await Promise.all(writers);
      writing = false;
      await poller;
      const ids = await store.changeIds();
      // Once no writer runs, the feed catches up with every committed change.
      for (let round = 0; seen.length < ids.length && round < 100; round += 1) {
        if ((await poll(a)) === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(seen.length).toBe(ids.length);
      expect(new Set(seen).size).toBe(seen.length);
      expect([...seen].sort((x, y) => (x < y ? -1 : 1)).map(String)).toEqual(ids);
      expect(ids.length).toBeGreaterThanOrEqual(200);
    }, 60_000);

    it('delivers all 200 events after kill -9, by the restarted and the other instance, each webhook-id at least once', async () => {
      const db = await make();
      const receiver = await startWebhookReceiver();
      const started: ServiceProcess[] = [];
      try {
        const added = await webhookAdminOf(db.webhooks, systemClock, true).addWebhook.execute({
          url: receiver.url,
          events: ['inventory.updated'],
          lowStockThreshold: null,
        });
        if (!added.ok) throw new Error(added.error);
        // The receiver hangs: the first instance's attempts are under way, unanswered, when it dies.
        receiver.answer = () => 'hold';
        const delivering = await startService(db.env);
        started.push(delivering);
        await Promise.all(
          Array.from({ length: PETS }, async (_, p) => {
            for (let i = 0; i < 200 / PETS; i += 1) await setStock(delivering, db.key, p + 1, 500 + i);
          }),
        );
        await receiver.until((all) => all.length > 0);
        delivering.child.kill('SIGKILL');
        await delivering.exited;
        const stats = await db.webhooks.stats();
        expect(stats.depth).toBe(200);
        expect(receiver.received.every((r) => r.status === 0)).toBe(true);
        receiver.answer = () => 200;
        started.push(...(await Promise.all([startService(db.env), startService(db.env)])));
        const ids = await db.changeIds();
        expect(ids).toHaveLength(200);
        const expected = ids.map((id) => deliveryIdOf(added.value.endpoint.id, BigInt(id), 'inventory.updated'));
        const deliveredIds = () => new Set(receiver.received.filter((r) => r.status === 200).map((r) => r.id));
        // The attempts cut by the kill are taken again once their 15 s lease lapses.
        await receiver.until(() => deliveredIds().size >= 200, 45_000);
        const delivered = deliveredIds();
        expect(expected.filter((id) => !delivered.has(id))).toEqual([]);
        expect(delivered.size).toBe(200);
        for (const delivery of receiver.received) verify(added.value.secret, delivery);
        // The receiver counts an answer before the instance that sent it has marked the delivery done.
        await expect.poll(() => db.webhooks.stats(), { timeout: 10_000 }).toEqual({ depth: 0, oldestAtMs: null });
      } finally {
        await Promise.all(
          started.filter((s) => s.child.exitCode === null && s.child.signalCode === null).map((s) => s.stop()),
        );
        await receiver.close();
        await db.close();
      }
    }, 120_000);
  });
}

describeStockEvents('SQLite file', sqliteStore);

describe.skipIf(!hasPostgresServer)('over PostgreSQL', () => {
  let postgres: PostgresServer | undefined;
  beforeAll(async () => {
    postgres = await startPostgresServer();
  }, 30_000);
  afterAll(async () => {
    await postgres?.stop();
  });
  describeStockEvents('PostgreSQL', () => postgresStore(postgres as PostgresServer));
});
