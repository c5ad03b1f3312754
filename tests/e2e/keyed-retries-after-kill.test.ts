import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { quantity } from '../../src/domain/quantity.js';
import { aPet } from '../../src/testing/index.js';
import { issueUnlimitedKey, type ServiceProcess, startService } from '../../support/service-process.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';

const PETS = [1, 2, 3, 4, 5];
const REQUESTS = 400;
const IN_FLIGHT = 16;
/** The process is killed once this many requests have been answered: mid-load, with others in flight. */
const KILL_AFTER = 120;

/** One keyed PATCH of the load. Its quantity is unique, so its change can be told apart in any history. */
interface KeyedPatch {
  readonly idempotencyKey: string;
  readonly pet: number;
  readonly quantity: number;
}

const LOAD: readonly KeyedPatch[] = Array.from({ length: REQUESTS }, (_, i) => ({
  idempotencyKey: `restock-${i}`,
  pet: PETS[i % PETS.length] as number,
  quantity: 1_000 + i,
}));

let temp: TempDatabase;
const running: ServiceProcess[] = [];
beforeEach(async () => {
  temp = await tempDatabase();
  const storage = openSqliteStorage({ path: temp.path });
  try {
    expect((await storage.pets.addAll(PETS.map((id) => aPet(id, { quantity: quantity(1) })))).ok).toBe(true);
  } finally {
    await storage.close();
  }
});
afterEach(async () => {
  for (const s of running.splice(0)) if (s.child.exitCode === null && s.child.signalCode === null) await s.stop();
  await temp.remove();
});

const start = async (): Promise<ServiceProcess> => {
  const s = await startService({ PETSTORE_DB: temp.path, PETSTORE_ENV: 'production' });
  running.push(s);
  return s;
};

/** Sends one PATCH of the load with its Idempotency-Key. */
const keyedPatch = (url: string, key: string, request: KeyedPatch): Promise<Response> =>
  fetch(`${url}/v1/inventory/${request.pet}`, {
    method: 'PATCH',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'idempotency-key': request.idempotencyKey,
    },
    body: `{"quantity":${request.quantity}}`,
    signal: AbortSignal.timeout(15_000),
  });

/** Sends one PATCH; its status once the whole answer arrived, or `undefined` when none came. */
async function send(url: string, key: string, request: KeyedPatch): Promise<number | undefined> {
  try {
    const response = await keyedPatch(url, key, request);
    await response.text();
    return response.status;
  } catch {
    return undefined;
  }
}

describe('kill -9 under a load of keyed PATCHes, then a restart and retries with the same keys', () => {
  it('writes every change exactly once: none of the answered ones lost, none of the retried ones twice', async () => {
    const key = await issueUnlimitedKey(temp.path);
    const first = await start();
    const answeredBeforeKill = new Map<string, number>();
    const queue = [...LOAD];
    let killed = false;
    let cutOff = 0;
    const worker = async (): Promise<void> => {
      while (!killed) {
        const next = queue.shift();
        if (next === undefined) return;
        const status = await send(first.url, key, next);
        if (status === undefined || killed) cutOff += 1;
        else answeredBeforeKill.set(next.idempotencyKey, status);
        if (answeredBeforeKill.size >= KILL_AFTER && !killed) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    expect(await first.exited).toBeNull();
    expect(first.child.signalCode).toBe('SIGKILL');
    expect([...answeredBeforeKill.values()].every((status) => status === 200)).toBe(true);
    // Requests were in flight when the process died, not only waiting in the queue.
    expect(cutOff).toBeGreaterThan(0);
    const unanswered = LOAD.filter((request) => !answeredBeforeKill.has(request.idempotencyKey));

    const second = await start();
    const replayed: string[] = [];
    const retryQueue = [...unanswered];
    const retry = async (): Promise<void> => {
      for (let next = retryQueue.shift(); next !== undefined; next = retryQueue.shift()) {
        const response = await keyedPatch(second.url, key, next);
        expect(response.status).toBe(200);
        expect(await response.json()).toMatchObject({ petId: next.pet, quantity: next.quantity });
        if (response.headers.get('idempotent-replayed') === 'true') replayed.push(next.idempotencyKey);
      }
    };
    await Promise.all(Array.from({ length: 4 }, retry));

    const timesWritten = new Map<number, number>();
    for (const pet of PETS) {
      const history = await fetch(`${second.url}/v1/inventory/${pet}/changes?limit=1000`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(history.status).toBe(200);
      expect(history.headers.get('link')).toBeNull();
      for (const change of (await history.json()) as { quantityAfter: number }[]) {
        timesWritten.set(change.quantityAfter, (timesWritten.get(change.quantityAfter) ?? 0) + 1);
      }
    }
    // Every request has now been answered 200, before the kill or by its retry: each change once.
    for (const request of LOAD) expect(timesWritten.get(request.quantity), request.idempotencyKey).toBe(1);
    expect([...timesWritten.values()].reduce((sum, n) => sum + n, 0)).toBe(REQUESTS);
    // A replayed retry is a change committed before the kill whose answer never arrived.
    for (const idempotencyKey of replayed) expect(answeredBeforeKill.has(idempotencyKey)).toBe(false);
  }, 120_000);
});
