import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCli } from '../../src/adapters/cli/admin-cli.js';
import { MemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.js';
import { openPostgresStorage, type PostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { NodeKeyCrypto } from '../../src/adapters/system/node-key-crypto.js';
import { systemClock } from '../../src/adapters/system/system-clock.js';
import { createInventoryCore } from '../../src/application/inventory-core.js';
import { aPet } from '../../src/testing/index.js';
import { type PostgresServer, startPostgresServer } from '../../support/postgres-server.js';
import { type RedisServer, startRedisServer } from '../../support/redis-server.js';
import { runPetstore, type ServiceProcess, startService } from '../../support/service-process.js';
import { webhookAdminOf } from '../../support/webhook-admin.js';
import { hasPostgresServer } from '../postgres/postgres-fixture.js';
import { eventually, hasRedisServer } from '../redis/redis-fixture.js';

interface Answer {
  readonly status: number;
  readonly code: unknown;
  readonly remaining: string | null;
  readonly body: unknown;
}

async function get(instance: ServiceProcess, path: string, key: string): Promise<Answer> {
  const response = await fetch(`${instance.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const body: unknown = await response.json();
  const code = typeof body === 'object' && body !== null && 'code' in body ? body.code : undefined;
  return { status: response.status, code, remaining: response.headers.get('x-ratelimit-remaining'), body };
}

describe.skipIf(!hasPostgresServer || !hasRedisServer)(
  'key rolls across two instances sharing one PostgreSQL and one Redis, driven by the admin CLI',
  () => {
    let postgres: PostgresServer;
    let redis: RedisServer;
    let env: Record<string, string>;
    let storage: PostgresStorage;
    const instances: ServiceProcess[] = [];

    /**
     * Runs an admin command in this process, through the CLI's own parsing and commands over the shared
     * database: a process of its own takes seconds to start on a loaded machine, longer than a 3 s grace.
     */
    const cli = async (...argv: string[]): Promise<string> => {
      const crypto = new NodeKeyCrypto();
      const ports = {
        ...storage,
        limiter: new MemoryRateLimiter(systemClock),
        keyGenerator: crypto,
        keyHasher: crypto,
      };
      let stdout = '';
      let stderr = '';
      const io = {
        stdout: (t: string) => {
          stdout += t;
        },
        stderr: (t: string) => {
          stderr += t;
        },
      };
      const code = await runAdminCli(
        argv,
        {
          ...createInventoryCore({ ...ports, clock: systemClock }),
          clock: systemClock,
          webhooks: webhookAdminOf(ports.webhooks, systemClock),
        },
        io,
      );
      if (code !== 0) throw new Error(`${argv.join(' ')} exited with ${code}: ${stderr}`);
      return stdout.trim();
    };
    const show = async (id: string): Promise<Record<string, unknown>> =>
      JSON.parse(await cli('keys', 'show', id, '--json')) as Record<string, unknown>;
    /** The id of a key, as GET /v1/rate_limit tells its holder. */
    const idOf = async (key: string, instance = instances[0] as ServiceProcess): Promise<string> =>
      ((await get(instance, '/v1/rate_limit', key)).body as { key: { id: string } }).key.id;

    beforeAll(async () => {
      [postgres, redis] = await Promise.all([startPostgresServer(), startRedisServer()]);
      const url = await postgres.createDatabase();
      storage = await openPostgresStorage({ url });
      await storage.pets.addAll([aPet(1)]);
      env = { DATABASE_URL: url, REDIS_URL: redis.url, PETSTORE_ENV: 'production', REDIS_COMMAND_TIMEOUT_MS: '2000' };
      instances.push(...(await Promise.all([startService(env), startService(env)])));
    }, 90_000);

    afterAll(async () => {
      await Promise.all(instances.map((s) => s.stop()));
      await storage?.close();
      await Promise.all([redis?.stop(), postgres?.stop()]);
    });

    it('after roll --grace 3s both keys work, counted in one window, and the old one is refused from the end of the grace', async () => {
      const [a, b] = instances as [ServiceProcess, ServiceProcess];
      const old = await cli('keys', 'create', '--plan', 'free', '--name', 'till', '--actor', 'ops');
      const oldId = await idOf(old);
      expect((await get(a, '/v1/inventory', old)).remaining).toBe('59');
      const next = await cli('keys', 'roll', oldId, '--grace', '3s', '--actor', 'ops');
      const graceEnds = Date.parse((await show(oldId)).expiresAt as string);
      // Both keys, on both instances, spend one quota.
      expect(await get(b, '/v1/inventory', next)).toMatchObject({ status: 200, remaining: '58' });
      expect(await get(b, '/v1/inventory', old)).toMatchObject({ status: 200, remaining: '57' });
      expect(await get(a, '/v1/inventory', next)).toMatchObject({ status: 200, remaining: '56' });
      const status = await get(a, '/v1/rate_limit', next);
      expect(status.body).toMatchObject({
        key: { name: 'till', plan: 'free', scopes: ['inventory:read', 'inventory:write'], expiresAt: null },
        limits: { minute: { limit: 60, remaining: 56, used: 4 } },
      });
      expect(status.remaining).toBe('56');
      expect(Date.now()).toBeLessThan(graceEnds);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, graceEnds - Date.now())));
      const refusedBy = new Set<number>();
      const deadline = graceEnds + 1_000;
      while (refusedBy.size < 2 && Date.now() < deadline) {
        for (const [i, instance] of instances.entries()) {
          if ((await get(instance, '/v1/inventory', old)).code === 'key_expired') refusedBy.add(i);
        }
      }
      expect(refusedBy.size).toBe(2);
      expect(await get(b, '/v1/inventory', next)).toMatchObject({ status: 200, remaining: '55' });
    }, 90_000);

    it('refuses a key rolled out with --grace 0 on both instances within 1 s', async () => {
      const old = await cli('keys', 'create', '--plan', 'pro');
      // Both instances hold the key in their caches before the roll.
      for (const instance of instances) expect((await get(instance, '/v1/inventory', old)).status).toBe(200);
      const id = await idOf(old);
      const run = await runPetstore(env, 'keys', 'roll', id, '--grace', '0');
      const rolledAt = performance.now();
      expect(run.code).toBe(0);
      const refusedBy = new Set<number>();
      while (refusedBy.size < 2 && performance.now() < rolledAt + 1_000) {
        for (const [i, instance] of instances.entries()) {
          if ((await get(instance, '/v1/inventory', old)).status === 401) refusedBy.add(i);
        }
      }
      expect(refusedBy.size).toBe(2);
      expect((await get(instances[1] as ServiceProcess, '/v1/inventory', run.stdout.trim())).status).toBe(200);
    }, 60_000);

    it('records the last use within a minute, and lists every admin action in order in keys audit', async () => {
      const key = await cli('keys', 'create', '--plan', 'free', '--actor', 'auditor');
      const id = await idOf(key, instances[1]);
      const usedAt = Date.now();
      await eventually('lastUsedAt written', async () => (await show(id)).lastUsedAt !== null, 60_000);
      const lastUsed = Date.parse((await show(id)).lastUsedAt as string);
      expect(Math.abs(lastUsed - usedAt)).toBeLessThan(60_000);
      await cli('keys', 'revoke', id, '--actor', 'auditor');
      const trail = (await cli('keys', 'audit', '--json', '--limit', '7'))
        .split('\n')
        .map((line) => JSON.parse(line) as { action: string; actor: string; keyId: string });
      expect(trail.map((e) => `${e.action} ${e.actor}`)).toEqual([
        'revoke auditor',
        'create auditor',
        expect.stringMatching(/^roll /),
        expect.stringMatching(/^create /),
        'roll ops',
        'create ops',
      ]);
      expect(trail.slice(0, 2).map((e) => e.keyId)).toEqual([id, id]);
    }, 90_000);
  },
);
