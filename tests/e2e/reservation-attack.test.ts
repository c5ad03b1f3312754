import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueUnlimitedKey, runPetstore, type ServiceProcess, startService } from '../../support/service-process.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';

const PETS = 200;
const STOCK = 100;
const CAP = 50;

/**
 * The attack of issue "Hardening 3", item 1, on the service as it runs (production, SQLite, one
 * process): one key reserves all the stock of every pet for a day. It took everything in about 200
 * requests; now a day is refused, an hour is the longest hold, the key holds CAP at most, and revoking
 * it gives everything back.
 */
describe('one key trying to reserve all the stock', () => {
  let temp: TempDatabase;
  let service: ServiceProcess;
  let attacker: string;
  let shopper: string;

  beforeAll(async () => {
    temp = await tempDatabase();
    const env = { PETSTORE_DB: temp.path, PETSTORE_ENV: 'production' };
    const pets = Array.from({ length: PETS }, (_, i) => ({
      id: i + 1,
      name: `pet ${i + 1}`,
      quantity: STOCK,
      status: 'available',
    }));
    const file = join(temp.dir, 'pets.json');
    await writeFile(file, JSON.stringify(pets));
    expect((await runPetstore(env, 'pets', 'import', file)).code).toBe(0);
    attacker = await issueUnlimitedKey(temp.path);
    shopper = await issueUnlimitedKey(temp.path);
    service = await startService({ ...env, PETSTORE_MAX_HOLDS_PER_KEY: String(CAP) });
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await temp?.remove();
  });

  const call = (key: string, path: string, init: RequestInit = {}) =>
    fetch(`${service.url}/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
    });
  const reserveAll = (key: string, pet: number, ttlSeconds: number) =>
    call(key, `/inventory/${pet}/reservations`, {
      method: 'POST',
      body: JSON.stringify({ quantity: STOCK, ttlSeconds }),
    }).then(async (response) => ({
      status: response.status,
      code: ((await response.json()) as { code?: string }).code,
    }));

  /** Sends `request` for every pet, 10 at a time, in pet order within each ten. */
  async function everyPet<T>(request: (pet: number) => Promise<T>): Promise<T[]> {
    const answers: T[] = [];
    for (let first = 1; first <= PETS; first += 10) {
      answers.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) => request(first + i)))));
    }
    return answers;
  }
  const available = async () =>
    ((await (await call(shopper, '/inventory')).json()) as { available: number }[]).reduce(
      (s, i) => s + i.available,
      0,
    );

  it('refuses holds of a day with 400 hold_ttl_exceeded, holding nothing', async () => {
    const answers = await everyPet((pet) => reserveAll(attacker, pet, 86_400));
    expect(new Set(answers.map((a) => `${a.status} ${a.code}`))).toEqual(new Set(['400 hold_ttl_exceeded']));
    expect(await available()).toBe(PETS * STOCK);
  });

  it('lets the key hold its cap of pets for an hour, refuses the rest with 409 hold_limit_exceeded, and others buy the rest', async () => {
    const answers = await everyPet((pet) => reserveAll(attacker, pet, 3_600));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(CAP);
    expect(answers.filter((a) => a.status === 409 && a.code === 'hold_limit_exceeded')).toHaveLength(PETS - CAP);
    expect(await available()).toBe((PETS - CAP) * STOCK);
    const held = answers.flatMap((a, i) => (a.status === 201 ? [i + 1] : []));
    const free = answers.findIndex((a) => a.status !== 201) + 1;
    // Another key reserves, adjusts and sets the stock the attacker could not hold.
    expect((await reserveAll(shopper, free, 900)).status).toBe(201);
    const adjusted = await call(shopper, `/inventory/${PETS}/adjustments`, {
      method: 'POST',
      body: '{"delta":-1}',
    });
    expect(adjusted.status).toBe(200);
    // What the attacker holds stays held until it is released.
    const blocked = await call(shopper, `/inventory/${held[0]}/adjustments`, { method: 'POST', body: '{"delta":-1}' });
    expect(blocked.status).toBe(409);
  });

  it('gives all of the key’s holds back when an operator revokes it', async () => {
    const before = await available();
    const revoked = await runPetstore(
      { PETSTORE_DB: temp.path, PETSTORE_ENV: 'production' },
      'keys',
      'revoke',
      attacker,
    );
    expect(revoked.code).toBe(0);
    expect(await available()).toBe(before + CAP * STOCK);
    const listed = await runPetstore({ PETSTORE_DB: temp.path, PETSTORE_ENV: 'production' }, 'reservations', 'list');
    expect(listed.stdout.trim().split('\n')).toHaveLength(1);
  });
});
