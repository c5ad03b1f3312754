import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aPet } from '../../src/testing/index.js';
import { type MeteredService, sample, startMeteredService } from './metrics-service.js';

let service: MeteredService;
let key: string;
let keyId: string;
beforeAll(async () => {
  service = await startMeteredService({ storage: 'memory' });
  const added = await service.core.addPets.execute([aPet(1), aPet(9007199254740993n)]);
  if (!added.ok) throw new Error(added.error.message);
  const issued = await service.core.issueApiKey.execute({ plan: 'free' });
  key = issued.key;
  keyId = issued.record.id;
});
afterAll(() => service.close());

const send = async (path: string, init: RequestInit = {}): Promise<number> => {
  const response = await fetch(`${service.origin}${path}`, init);
  await response.arrayBuffer();
  return response.status;
};
const withKey = (init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
});
const count = (text: string, method: string, route: string, status: number): number | undefined =>
  sample(text, `petstore_http_request_duration_seconds_count{method="${method}",route="${route}",status="${status}"}`);

describe('GET /metrics', () => {
  it('answers the Prometheus text format without a key, with the process’s default metrics', async () => {
    const text = await service.metrics();
    expect(text).toMatch(/^# HELP process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
  });

  it('is outside /v1: no rate-limit headers, and not counted by the limiter', async () => {
    const before = sample(
      await service.metrics(),
      'petstore_rate_limit_decisions_total{outcome="admitted",limiter="memory"}',
    );
    const response = await fetch(`${service.origin}/metrics`);
    await response.text();
    expect(response.headers.get('x-ratelimit-limit')).toBeNull();
    const after = sample(
      await service.metrics(),
      'petstore_rate_limit_decisions_total{outcome="admitted",limiter="memory"}',
    );
    expect(after).toBe(before);
  });
});

describe('the request duration histogram', () => {
  it('labels each request with its method, route template and final status', async () => {
    expect(await send('/v1/inventory', withKey())).toBe(200);
    expect(await send('/v1/inventory/9007199254740993', withKey({ method: 'PATCH', body: '{"quantity":4}' }))).toBe(
      200,
    );
    expect(await send('/v1/inventory/1', withKey({ method: 'PATCH', body: '{"quantity":-1}' }))).toBe(400);
    const text = await service.metrics();
    expect(count(text, 'GET', '/v1/inventory', 200)).toBe(1);
    expect(count(text, 'PATCH', '/v1/inventory/:petId', 200)).toBe(1);
    expect(count(text, 'PATCH', '/v1/inventory/:petId', 400)).toBe(1);
    expect(text).toMatch(
      /^petstore_http_request_duration_seconds_bucket\{le="0\.001",method="GET",route="\/v1\/inventory",status="200"\} \d/m,
    );
  });

  it('labels a request the guard refused with the template of the route it asked for', async () => {
    expect(await send('/v1/pets/12345')).toBe(401);
    expect(count(await service.metrics(), 'GET', '/v1/pets/:petId', 401)).toBe(1);
  });

  it('labels a known path under another method with its template (405)', async () => {
    expect(await send('/v1/inventory', withKey({ method: 'DELETE' }))).toBe(405);
    expect(count(await service.metrics(), 'DELETE', '/v1/inventory', 405)).toBe(1);
  });

  it('counts every path no route matches under route="unmatched", never by the path itself', async () => {
    const junk = [
      '/v1/junk-a1b2c3',
      '/wp-admin/setup-x9y8.php',
      '/v1/inventory/',
      '/V1/INVENTORY',
      '/v1/inventory/1/zz-q7',
    ];
    for (const path of junk) await send(path, withKey());
    const text = await service.metrics();
    expect(count(text, 'GET', 'unmatched', 404)).toBe(junk.length);
    for (const fragment of ['a1b2c3', 'x9y8', 'INVENTORY', 'zz-q7']) expect(text).not.toContain(fragment);
  });

  it('folds a method outside the usual ones into OTHER', async () => {
    expect(await send('/v1/inventory', withKey({ method: 'PROPFIND' }))).toBe(405);
    expect(count(await service.metrics(), 'OTHER', '/v1/inventory', 405)).toBe(1);
  });

  it('holds no key, no key id and no pet id in any label', async () => {
    const text = await service.metrics();
    expect(text).not.toContain(key);
    expect(text).not.toContain(keyId);
    expect(text).not.toContain('9007199254740993');
  });
});

describe('the storage timings', () => {
  it('time each port call by port, operation and outcome, whichever store is behind it', async () => {
    const before = await service.metrics();
    const updates =
      'petstore_storage_operation_duration_seconds_count{port="inventory",operation="write",outcome="ok"}';
    expect(await send('/v1/inventory/1', withKey({ method: 'PATCH', body: '{"quantity":9}' }))).toBe(200);
    const after = await service.metrics();
    expect(sample(after, updates)).toBe((sample(before, updates) ?? 0) + 1);
    expect(after).toMatch(
      /^petstore_storage_operation_duration_seconds_count\{port="keys",operation="findByHash",outcome="ok"\} [1-9]/m,
    );
  });
});
