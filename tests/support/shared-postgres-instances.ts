import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { NodeKeyCrypto } from '../../src/adapters/system/node-key-crypto.js';
import { systemClock } from '../../src/adapters/system/system-clock.js';
import { IssueApiKey } from '../../src/application/use-cases/issue-api-key.js';
import { rateLimitPolicy } from '../../src/domain/plan.js';
import { quantity } from '../../src/domain/quantity.js';
import { aPet } from '../../src/testing/index.js';
import { startPostgresServer } from '../../support/postgres-server.js';
import { type ServiceProcess, startService } from '../../support/service-process.js';

/** Two service instances on one fresh PostgreSQL database, and a key whose limits no test reaches. */
export interface SharedPostgresInstances {
  readonly key: string;
  readonly instances: readonly [ServiceProcess, ServiceProcess];
  stop(): Promise<void>;
}

/** Starts PostgreSQL, stores pet 1 with `stock` on hand and an enterprise key, then two instances on it. */
export async function startSharedPostgresInstances(stock: number): Promise<SharedPostgresInstances> {
  const postgres = await startPostgresServer();
  try {
    const url = await postgres.createDatabase();
    const storage = await openPostgresStorage({ url });
    let key: string;
    try {
      await storage.pets.addAll([aPet(1, { quantity: quantity(stock) })]);
      const crypto = new NodeKeyCrypto();
      const issued = await new IssueApiKey(storage.keys, crypto, crypto, systemClock).execute({
        plan: 'enterprise',
        limits: rateLimitPolicy(1_000_000, 100_000_000),
      });
      key = issued.key;
    } finally {
      await storage.close();
    }
    const env = { DATABASE_URL: url, PETSTORE_ENV: 'production' };
    const [first, second] = await Promise.all([startService(env), startService(env)]);
    return {
      key,
      instances: [first, second],
      stop: async () => {
        await Promise.all([first.stop(), second.stop()]);
        await postgres.stop();
      },
    };
  } catch (error) {
    await postgres.stop();
    throw error;
  }
}
