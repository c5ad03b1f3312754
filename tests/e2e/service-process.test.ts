import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { createPetstoreClient, type PetstoreClient } from '../../src/client/index.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { childEnv, issueUnlimitedKey, type ServiceProcess, startService } from '../../support/service-process.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';

const KEY = /Development API key[^:]*: (psk_[0-9A-Za-z]{40})/;

let temp: TempDatabase;
const running: ServiceProcess[] = [];
beforeEach(async () => {
  temp = await tempDatabase();
});
afterEach(async () => {
  for (const s of running.splice(0)) if (s.child.exitCode === null) await s.stop();
  await temp.remove();
});

const start = async (env: Record<string, string> = {}): Promise<ServiceProcess> => {
  const s = await startService({ PETSTORE_DB: temp.path, ...env });
  running.push(s);
  return s;
};

/** The typed client of a running service, acting with `key`. */
const clientOf = (s: ServiceProcess, key: string, options: { fetch?: typeof fetch } = {}): PetstoreClient =>
  createPetstoreClient({ baseUrl: `${s.url}/v1`, apiKey: key, ...options });

describe('npm start in development', () => {
  it('seeds an empty database, prints one key once, and serves the seeded stock with it', async () => {
    const first = await start();
    const key = KEY.exec(first.stdout())?.[1];
    expect(key).toBeDefined();
    // The example names the address the server listens on, whatever port it was given (here a free one).
    expect(first.stdout()).toContain(`  curl -H "Authorization: Bearer ${key}" ${first.url}/v1/inventory\n`);
    const listed = await clientOf(first, key as string).get('/inventory');
    expect(listed.status).toBe(200);
    expect(listed.ok && listed.data).toContainEqual({
      petId: 9007199254740993n,
      quantity: 2,
      reserved: 0,
      available: 2,
      status: 'available',
    });
    expect(await first.stop()).toBe(0);

    const second = await start();
    expect(second.stdout()).not.toMatch(KEY);
    expect((await clientOf(second, key as string).get('/inventory')).status).toBe(200);
  });
});

describe('in staging and production', () => {
  it('never seeds and never prints a key', async () => {
    const s = await start({ PETSTORE_ENV: 'production' });
    expect(s.stdout()).not.toMatch(/psk_/);
    const storage = openSqliteStorage({ path: temp.path });
    try {
      expect(storage.isEmpty()).toBe(true);
    } finally {
      await storage.close();
    }
  });
});

describe('a restart', () => {
  it('keeps every change answered 200 before it', async () => {
    const first = await start();
    const key = KEY.exec(first.stdout())?.[1] as string;
    const patch = await clientOf(first, key).patch('/inventory/{petId}', {
      params: { path: { petId: 3n } },
      body: { quantity: 41 },
    });
    expect(patch.status).toBe(200);
    expect(await first.stop()).toBe(0);
    const second = await start();
    const list = await clientOf(second, key).get('/inventory');
    expect(list.ok && list.data).toContainEqual({
      petId: 3n,
      quantity: 41,
      reserved: 0,
      available: 41,
      status: 'available',
    });
  });
});

describe('SIGTERM', () => {
  it('lets an in-flight request finish, refuses new connections, and exits 0', async () => {
    // Enough pets that the list is still streaming when the signal arrives.
    const storage = openSqliteStorage({ path: temp.path, synchronous: 'NORMAL' });
    const many = Array.from({ length: 60_000 }, (_, i) => ({
      id: petId(BigInt(i + 1)),
      name: `pet ${i + 1}`,
      quantity: quantity(i % 7),
      status: 'available' as const,
    }));
    expect((await storage.pets.addAll(many)).ok).toBe(true);
    await storage.close();

    const s = await start({ PETSTORE_ENV: 'production' });
    const key = await issueUnlimitedKey(temp.path);
    // The client's fetch tells when the answer has begun: the list is then streaming, in flight.
    let begun: () => void = () => {};
    const streaming = new Promise<void>((resolve) => {
      begun = resolve;
    });
    const client = clientOf(s, key, {
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        begun();
        return response;
      },
    });
    const listing = client.get('/inventory');
    await streaming;

    s.child.kill('SIGTERM');
    const answer = await listing;
    expect(answer.status).toBe(200);
    expect(answer.ok && answer.data).toHaveLength(60_000);

    expect(await s.exited).toBe(0);
    await expect(fetch(`${s.url}/livez`)).rejects.toThrow();
  });
});

describe('a bad configuration', () => {
  it('stops the start with exit code 2 and a message naming the variable', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, '../../src/main.ts'), 'serve'],
      {
        env: childEnv({ PETSTORE_DB: temp.path, PORT: 'eighty' }),
      },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (t: string) => {
      stderr += t;
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/^error: PORT="eighty": /);
  });
});
