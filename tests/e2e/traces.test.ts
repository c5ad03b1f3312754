import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { NodeKeyCrypto } from '../../src/adapters/system/node-key-crypto.js';
import { systemClock } from '../../src/adapters/system/system-clock.js';
import { IssueApiKey } from '../../src/application/use-cases/issue-api-key.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { startPostgresServer } from '../../support/postgres-server.js';
import { type RedisServer, startRedisServer } from '../../support/redis-server.js';
import { type ServiceProcess, startService } from '../../support/service-process.js';
import { tempDatabase } from '../../support/temp-database.js';
import { hasPostgresServer } from '../postgres/postgres-fixture.js';
import { eventually, hasRedisServer } from '../redis/redis-fixture.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.js';

const SERVER = 2;

/** A store holding pet 1 and a free key, and the service's settings that select it. */
interface Store {
  readonly env: Record<string, string>;
  readonly key: string;
  readonly keyId: string;
  close(): Promise<void>;
}

type StoragePorts = Pick<Awaited<ReturnType<typeof openPostgresStorage>>, 'pets' | 'keys'>;

async function fill(storage: StoragePorts): Promise<{ key: string; keyId: string }> {
  await storage.pets.addAll([{ id: petId(1n), name: 'Rex', quantity: quantity(3), status: 'available' }]);
  const crypto = new NodeKeyCrypto();
  const issued = await new IssueApiKey(storage.keys, crypto, crypto, systemClock).execute({ plan: 'free' });
  return { key: issued.key, keyId: issued.record.id };
}

async function sqliteStore(): Promise<Store> {
  const temp = await tempDatabase();
  const storage = openSqliteStorage({ path: temp.path });
  try {
    return { env: { PETSTORE_DB: temp.path }, ...(await fill(storage)), close: () => temp.remove() };
  } finally {
    await storage.close();
  }
}

async function postgresStore(): Promise<Store> {
  const server = await startPostgresServer();
  const url = await server.createDatabase();
  const storage = await openPostgresStorage({ url });
  try {
    return { env: { DATABASE_URL: url }, ...(await fill(storage)), close: () => server.stop() };
  } finally {
    await storage.close();
  }
}

describe.each([
  { name: 'SQLite', available: hasRedisServer, open: sqliteStore, client: undefined },
  { name: 'PostgreSQL', available: hasRedisServer && hasPostgresServer, open: postgresStore, client: 'postgresql' },
])('traces exported over OTLP/HTTP, stored in $name', ({ available, open, client }) => {
  let store: Store;
  let redis: RedisServer;
  let receiver: OtlpReceiver;
  let service: ServiceProcess;
  let key: string;
  let keyId: string;

  beforeAll(async () => {
    if (!available) return;
    store = await open();
    ({ key, keyId } = store);
    redis = await startRedisServer();
    receiver = await startOtlpReceiver();
    service = await startService({
      ...store.env,
      PETSTORE_ENV: 'production',
      REDIS_URL: redis.url,
      REDIS_COMMAND_TIMEOUT_MS: '2000',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      // Export within a tenth of a second rather than the default five.
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    // Until its client is connected, a decision fails over to the in-process limiter and makes no Redis call.
    await eventually('Redis up in /readyz', async () => {
      const ready = (await (await fetch(`${service.url}/readyz`)).json()) as { checks?: { redis?: string } };
      return ready.checks?.redis === 'up';
    });
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
    await redis?.stop();
    await store?.close();
  });

  const call = (method: string, path: string, withKey: string | undefined, body?: string) =>
    fetch(`${service.url}${path}`, {
      method,
      headers: {
        ...(withKey === undefined ? {} : { authorization: `Bearer ${withKey}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body }),
    }).then(async (response) => {
      await response.arrayBuffer();
      return response.status;
    });

  /** The server span of the request to `path`, once exported; there must be exactly one. */
  const serverSpanOf = async (method: string, path: string): Promise<ReceivedSpan> => {
    const matching = () =>
      receiver.spans.filter(
        (s) => s.kind === SERVER && s.attributes['http.request.method'] === method && s.attributes['url.path'] === path,
      );
    await eventually(`the span of ${method} ${path}`, () => matching().length > 0);
    const found = matching();
    expect(found).toHaveLength(1);
    return found[0] as ReceivedSpan;
  };

  const traceOf = (root: ReceivedSpan): ReceivedSpan[] => receiver.spans.filter((s) => s.traceId === root.traceId);

  /** Whether `span` descends from `ancestor` within its trace. */
  const descends = (span: ReceivedSpan, ancestor: ReceivedSpan, spans: readonly ReceivedSpan[]): boolean => {
    for (
      let at: ReceivedSpan | undefined = span;
      at !== undefined;
      at = spans.find((s) => s.spanId === at?.parentSpanId)
    ) {
      if (at.parentSpanId === ancestor.spanId) return true;
    }
    return false;
  };

  it.skipIf(!available)(
    'gives each request one trace, named by its route template, with its status, key id and child spans',
    async () => {
      expect(await call('GET', '/v1/inventory/1', key)).toBe(200);
      expect(await call('PATCH', '/v1/inventory/1', key, '{"quantity":5}')).toBe(200);
      const requests = [
        { method: 'GET', path: '/v1/inventory/1', status: 200, store: 'inventory.' },
        { method: 'PATCH', path: '/v1/inventory/1', status: 200, store: 'inventory.write' },
      ];
      const traces = new Set<string>();
      for (const { method, path, status, store } of requests) {
        const root = await serverSpanOf(method, path);
        traces.add(root.traceId);
        expect(root.parentSpanId).toBe('');
        expect(root.name).toBe(`${method} /v1/inventory/:petId`);
        expect(root.attributes).toMatchObject({
          'http.route': '/v1/inventory/:petId',
          'http.response.status_code': status,
          'petstore.key_id': keyId,
        });
        // Spans leave in batches, which may arrive in any order: wait for the Redis call's too.
        await eventually('the Redis span of the request', () =>
          traceOf(root).some((s) => s.attributes['db.system.name'] === 'redis'),
        );
        const spans = traceOf(root);
        // One root: every other span of the trace descends from the request's.
        expect(spans.filter((s) => s.parentSpanId === '')).toEqual([root]);
        expect(spans.every((s) => s === root || descends(s, root, spans))).toBe(true);
        const stored = spans.find((s) => s.name.startsWith(store));
        expect(stored).toBeDefined();
        // The store's client, when it has an instrumentation (pg): its queries under the store's span.
        if (client !== undefined) {
          const queries = spans.filter((s) => s.attributes['db.system.name'] === client);
          expect(queries.length).toBeGreaterThan(0);
          expect(queries.some((q) => descends(q, stored as ReceivedSpan, spans))).toBe(true);
        }
        const limiter = spans.find((s) => s.name === 'rate_limiter.admit');
        expect(limiter).toBeDefined();
        // ioredis's span: the command alone, never its keys or arguments.
        const redisCall = spans.find((s) => s.attributes['db.system.name'] === 'redis');
        expect(redisCall).toMatchObject({ name: 'evalsha', attributes: { 'db.query.text': 'evalsha' } });
        expect(descends(redisCall as ReceivedSpan, limiter as ReceivedSpan, spans)).toBe(true);
      }
      expect(traces.size).toBe(2);
    },
  );

  it.skipIf(!available)(
    'traces a refused request under its route, without a key id, and a key sent in the path never',
    async () => {
      expect(await call('GET', '/v1/store/orders', undefined)).toBe(401);
      const refused = await serverSpanOf('GET', '/v1/store/orders');
      expect(refused.name).toBe('GET /v1/store/orders');
      expect(refused.attributes['http.response.status_code']).toBe(401);
      expect(refused.attributes['petstore.key_id']).toBeUndefined();

      expect(await call('GET', `/v1/inventory/${key}?after=${key}`, key)).toBe(400);
      const leaked = await serverSpanOf('GET', '/v1/inventory/psk_[redacted]');
      expect(leaked.attributes['url.query']).toBe('after=psk_[redacted]');
      expect(JSON.stringify(receiver.spans)).not.toContain(key.slice(4));
    },
  );

  it.skipIf(!available)('leaves probes untraced and exports traces alone', async () => {
    expect(await call('GET', '/livez', undefined)).toBe(200);
    expect(await call('GET', '/v1/inventory', key)).toBe(200);
    await serverSpanOf('GET', '/v1/inventory');
    expect(receiver.spans.filter((s) => s.attributes['url.path'] === '/livez')).toEqual([]);
    expect(new Set(receiver.paths)).toEqual(new Set(['/v1/traces']));
  });

  it.skipIf(!available)('keeps the metrics of the same calls: spans and timings wrap the ports together', async () => {
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/^petstore_storage_operation_duration_seconds_count\{port="inventory",operation="get"/m);
    expect(metrics).toMatch(/^petstore_rate_limit_decisions_total\{outcome="admitted",limiter="redis"\} [1-9]/m);
  });
});
