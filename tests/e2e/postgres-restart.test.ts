import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { NodeKeyCrypto } from '../../src/adapters/system/node-key-crypto.js';
import { systemClock } from '../../src/adapters/system/system-clock.js';
import { IssueApiKey } from '../../src/application/use-cases/issue-api-key.js';
import { rateLimitPolicy } from '../../src/domain/plan.js';
import { aPet } from '../../src/testing/index.js';
import { type PostgresServer, startPostgresServer } from '../../support/postgres-server.js';
import { type ServiceProcess, startService } from '../../support/service-process.js';
import { hasPostgresServer } from '../postgres/postgres-fixture.js';
import { eventually } from '../redis/redis-fixture.js';

const PETS = 10;
/** Quantities sent are this plus the write's number: each acknowledged write is found by its value. */
const BASE = 1_000;
/** Longer than any answer may take: the connect timeout (1 s) or the statement timeout (2 s), with margin. */
const ANSWER_WITHIN_MS = 10_000;

interface Write {
  readonly n: number;
  readonly status: number;
  /** The error's code, when the answer was one. */
  readonly code?: string;
}

describe.skipIf(!hasPostgresServer)('a service whose PostgreSQL restarts under a write load', () => {
  let postgres: PostgresServer;
  let url: string;
  let service: ServiceProcess;
  let key: string;
  let keyId: string;

  beforeAll(async () => {
    postgres = await startPostgresServer();
    url = await postgres.createDatabase();
    const storage = await openPostgresStorage({ url });
    try {
      await storage.pets.addAll(Array.from({ length: PETS }, (_, i) => aPet(i + 1)));
      const crypto = new NodeKeyCrypto();
      const issued = await new IssueApiKey(storage.keys, crypto, crypto, systemClock).execute({
        plan: 'enterprise',
        limits: rateLimitPolicy(1_000_000, 100_000_000),
      });
      key = issued.key;
      keyId = issued.record.id;
    } finally {
      await storage.close();
    }
    service = await startService({
      DATABASE_URL: url,
      PETSTORE_ENV: 'production',
      PETSTORE_PG_CONNECT_TIMEOUT_MS: '1000',
      PETSTORE_PG_STATEMENT_TIMEOUT_MS: '2000',
    });
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await postgres?.stop();
  });

  const readiness = async (): Promise<{ status: number; body: unknown }> => {
    const res = await fetch(`${service.url}/readyz`);
    return { status: res.status, body: await res.json() };
  };

  it('loses no acknowledged write, answers 503 only for a write not saved, and serves again without a restart', async () => {
    const writes: Write[] = [];
    let next = 0;
    let running = true;
    const worker = async (): Promise<void> => {
      while (running) {
        const n = next;
        next += 1;
        const answer = fetch(`${service.url}/v1/inventory/${(n % PETS) + 1}`, {
          method: 'PATCH',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            'idempotency-key': `write-${n}`,
          },
          body: JSON.stringify({ quantity: BASE + n }),
          signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
        });
        // No answer at all (a crash, a hang past the bound) is recorded as status 0, and fails below.
        const written = await answer.then(
          async (res): Promise<Write> => {
            const body = (await res.json().catch(() => undefined)) as { code?: unknown } | undefined;
            return typeof body?.code === 'string'
              ? { n, status: res.status, code: body.code }
              : { n, status: res.status };
          },
          (): Write => ({ n, status: 0 }),
        );
        writes.push(written);
      }
    };
    const acknowledged = (): number => writes.filter((w) => w.status === 200).length;
    const load = Promise.all(Array.from({ length: 4 }, worker));
    try {
      await eventually('writes before the restart', () => acknowledged() >= 30);
      await postgres.kill();
      const down = writes.length;
      await eventually('503s while PostgreSQL is down', () => writes.slice(down).some((w) => w.status === 503));
      expect(await readiness()).toEqual({
        status: 503,
        body: expect.objectContaining({ code: 'unavailable', message: expect.stringContaining('postgres down') }),
      });
      await postgres.start();
      const back = acknowledged();
      await eventually('writes after the restart', () => acknowledged() >= back + 30, 20_000);
    } finally {
      running = false;
      await load;
    }

    expect(service.child.exitCode).toBeNull();
    // A write whose COMMIT's answer was lost while the server stayed down longer than the service asks
    // for may be answered outcome_unknown (500); any other answer is a 200 or a 503 unavailable.
    const truthful = (w: Write): boolean =>
      w.status === 200 ||
      (w.status === 503 && w.code === 'unavailable') ||
      (w.status === 500 && w.code === 'outcome_unknown');
    expect(writes.filter((w) => !truthful(w))).toEqual([]);
    await eventually('/readyz ready again', async () => (await readiness()).status === 200);

    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ after_quantity: number }>(
        'SELECT after_quantity FROM stock_changes WHERE actor = $1',
        [keyId],
      );
      const recorded = rows.map((r) => r.after_quantity - BASE);
      // Every acknowledged write is there, and no write is there twice.
      const missing = writes.filter((w) => w.status === 200 && !recorded.includes(w.n));
      expect(missing).toEqual([]);
      // A 503 says "not done, retry": none of those writes is there.
      const saidNotDone = writes.filter((w) => w.status === 503 && recorded.includes(w.n));
      expect(saidNotDone).toEqual([]);
      expect(new Set(recorded).size).toBe(recorded.length);
    } finally {
      await client.end();
    }
  }, 90_000);
});
