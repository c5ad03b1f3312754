import { readFile } from 'node:fs/promises';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { NodeKeyCrypto } from '../../src/adapters/system/node-key-crypto.js';
import { systemClock } from '../../src/adapters/system/system-clock.js';
import { IssueApiKey } from '../../src/application/use-cases/issue-api-key.js';
import { rateLimitPolicy } from '../../src/domain/plan.js';
import { aPet } from '../../src/testing/index.js';
import { type NginxServer, startNginx } from '../../support/nginx-server.js';
import { type PostgresServer, startPostgresServer } from '../../support/postgres-server.js';
import { freePort, type RedisServer, startRedisServer } from '../../support/redis-server.js';
import { type ServiceProcess, startService } from '../../support/service-process.js';

/** Every pet starts with this quantity (the object mother's). */
export const START_QUANTITY = 5;

/** One RSS sample of one service process. */
export interface RssSample {
  readonly instance: number;
  readonly pid: number;
  readonly atMs: number;
  readonly kib: number;
}

/** Two service instances behind deploy/'s nginx, sharing one PostgreSQL and one Redis, all on 127.0.0.1. */
export interface SoakStack {
  readonly url: string;
  readonly key: string;
  readonly petIds: readonly number[];
  /** kill -9 of one instance; resolves once it has exited. */
  killInstance(i: number): Promise<void>;
  /** Starts the instance again on its port; resolves once it listens. */
  startInstance(i: number): Promise<void>;
  readonly postgres: PostgresServer;
  readonly redis: RedisServer;
  /** The VmRSS of every running instance, in KiB, stamped with `now`. */
  sampleRss(now: number): Promise<RssSample[]>;
  stop(): Promise<void>;
}

async function seed(url: string, pets: number): Promise<string> {
  const storage = await openPostgresStorage({ url });
  try {
    await storage.pets.addAll(Array.from({ length: pets }, (_, i) => aPet(i + 1)));
    const crypto = new NodeKeyCrypto();
    const issued = await new IssueApiKey(storage.keys, crypto, crypto, systemClock).execute({
      plan: 'enterprise',
      limits: rateLimitPolicy(1_000_000, 100_000_000),
    });
    return issued.key;
  } finally {
    await storage.close();
  }
}

async function vmRssKib(pid: number): Promise<number | undefined> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

export async function startSoakStack(pets: number): Promise<SoakStack> {
  const [postgres, redis] = await Promise.all([startPostgresServer(), startRedisServer()]);
  const instances: (ServiceProcess | undefined)[] = [undefined, undefined];
  let nginx: NginxServer | undefined;
  try {
    const databaseUrl = await postgres.createDatabase();
    const key = await seed(databaseUrl, pets);
    const env = {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      PETSTORE_ENV: 'production',
      PETSTORE_TRUST_PROXY: 'true',
      PETSTORE_PG_CONNECT_TIMEOUT_MS: '1000',
      PETSTORE_PG_STATEMENT_TIMEOUT_MS: '2000',
      // The production 100 ms is about a failing Redis; on a shared machine a healthy one can miss it.
      REDIS_COMMAND_TIMEOUT_MS: '500',
    };
    const ports = [await freePort(), await freePort()];
    const startInstance = async (i: number): Promise<void> => {
      instances[i] = await startService({ ...env, PORT: String(ports[i]) });
    };
    await Promise.all([startInstance(0), startInstance(1)]);
    nginx = await startNginx(ports.map((p) => `127.0.0.1:${p}`));
    const front = nginx;
    return {
      url: front.url,
      key,
      petIds: Array.from({ length: pets }, (_, i) => i + 1),
      postgres,
      redis,
      startInstance,
      async killInstance(i) {
        const instance = instances[i];
        if (instance === undefined) return;
        instance.child.kill('SIGKILL');
        await instance.exited;
        instances[i] = undefined;
      },
      async sampleRss(now) {
        const samples: RssSample[] = [];
        for (const [i, instance] of instances.entries()) {
          const pid = instance?.child.pid;
          if (pid === undefined) continue;
          const kib = await vmRssKib(pid);
          if (kib !== undefined) samples.push({ instance: i, pid, atMs: now, kib });
        }
        return samples;
      },
      async stop() {
        await front.stop();
        await Promise.all(instances.map((s) => s?.stop()));
        await Promise.all([redis.stop(), postgres.stop()]);
      },
    };
  } catch (error) {
    await nginx?.stop();
    await Promise.all(instances.map((s) => s?.stop()));
    await Promise.all([redis.stop(), postgres.stop()]);
    throw error;
  }
}
