import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { NodeKeyCrypto } from '../../src/adapters/system/node-key-crypto.js';
import { systemClock } from '../../src/adapters/system/system-clock.js';
import { IssueApiKey } from '../../src/application/use-cases/issue-api-key.js';
import { createPetstoreClient } from '../../src/client/index.js';
import { freePort } from '../../support/redis-server.js';
import { type ServiceProcess, startService } from '../../support/service-process.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';

describe('a service whose Redis is unreachable', () => {
  let temp: TempDatabase;
  let key: string;
  let service: ServiceProcess | undefined;
  beforeEach(async () => {
    temp = await tempDatabase();
    const storage = openSqliteStorage({ path: temp.path });
    try {
      const crypto = new NodeKeyCrypto();
      key = (await new IssueApiKey(storage.keys, crypto, crypto, systemClock).execute({ plan: 'free' })).key;
    } finally {
      await storage.close();
    }
  });
  afterEach(async () => {
    await service?.stop();
    service = undefined;
    await temp.remove();
  });

  const start = async (failure: 'open' | 'closed'): Promise<ServiceProcess> => {
    service = await startService({
      PETSTORE_DB: temp.path,
      PETSTORE_ENV: 'production',
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      PETSTORE_RATE_LIMIT_FAILURE: failure,
    });
    return service;
  };
  const list = (s: ServiceProcess) => createPetstoreClient({ baseUrl: `${s.url}/v1`, apiKey: key }).get('/inventory');

  it('fails open by default: it serves, limited in process, and stays ready', async () => {
    const s = await start('open');
    const res = await list(s);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('59');
    const ready = await fetch(`${s.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { sqlite: 'up', redis: 'down' } });
  });

  it('fails closed when configured: 503 unavailable with the Error body, and not ready', async () => {
    const s = await start('closed');
    // Not ready from the start, before any request has failed.
    expect((await fetch(`${s.url}/readyz`)).status).toBe(503);
    const res = await list(s);
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res).toMatchObject({ ok: false, error: { code: 'unavailable', message: expect.any(String), status: 503 } });
    const ready = await fetch(`${s.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({
      code: 'unavailable',
      message: expect.stringContaining('redis down'),
      status: 503,
    });
  });
});
