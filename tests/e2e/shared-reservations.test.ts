import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceProcess } from '../../support/service-process.js';
import { hasPostgresServer } from '../postgres/postgres-fixture.js';
import { type SharedPostgresInstances, startSharedPostgresInstances } from '../support/shared-postgres-instances.js';

interface ReservationBody {
  readonly id: string;
  readonly state: string;
  readonly expiresAt: string;
}

describe.skipIf(!hasPostgresServer)('reservations through two instances sharing one PostgreSQL', () => {
  let shared: SharedPostgresInstances | undefined;
  let key: string;
  let instances: readonly ServiceProcess[] = [];

  beforeAll(async () => {
    shared = await startSharedPostgresInstances(5);
    ({ key, instances } = shared);
  }, 60_000);

  afterAll(async () => {
    await shared?.stop();
  });

  const instance = (i: number): ServiceProcess => instances[i % 2] as ServiceProcess;

  const call = (i: number, path: string, init: RequestInit = {}) =>
    fetch(`${instance(i).url}/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
    });

  const reserve = (i: number, body: string) =>
    call(i, '/inventory/1/reservations', { method: 'POST', body }).then(async (response) => ({
      status: response.status,
      location: response.headers.get('location'),
      body: (await response.json()) as ReservationBody & { readonly code?: string },
    }));

  /** The pet's item as each instance answers it. */
  const items = () => Promise.all([0, 1].map(async (i) => (await call(i, '/inventory/1')).json()));

  const history = async () => (await (await call(1, '/inventory/1/changes?limit=1000')).json()) as { kind: string }[];

  it('holds exactly the 5 there are of 20 reservations at once; once their time is up all 5 are available again, none committed', async () => {
    // 3 s: short, yet longer than the burst takes on a busy machine, so no hold lapses within it.
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => reserve(i, '{"quantity":1,"ttlSeconds":3}')),
    );
    const created = answers.filter((a) => a.status === 201);
    expect(created).toHaveLength(5);
    for (const a of created) expect(a.location).toBe(`/v1/reservations/${a.body.id}`);
    const refused = answers.filter((a) => a.status === 409);
    expect(refused).toHaveLength(15);
    for (const a of refused) expect(a.body.code).toBe('insufficient_stock');
    for (const item of await items()) expect(item).toMatchObject({ quantity: 5, reserved: 5, available: 0 });

    // Two processes have no clock to move: wait for the last hold's own expiry, which no purge marks yet.
    const last = Math.max(...created.map((a) => Date.parse(a.body.expiresAt)));
    await new Promise((resolve) => setTimeout(resolve, last - Date.now() + 20));
    for (const item of await items())
      expect(item).toEqual({ petId: 1, quantity: 5, reserved: 0, available: 5, status: 'available' });
    for (const [i, a] of created.entries()) {
      expect(await (await call(i, `/reservations/${a.body.id}`)).json()).toMatchObject({ state: 'expired' });
    }
    expect(await history()).toEqual([]);
  });

  it('commits 3 of 5 new holds and releases 2: 2 on hand, none reserved, three history entries', async () => {
    const holds = await Promise.all(Array.from({ length: 5 }, (_, i) => reserve(i, '{"quantity":1}')));
    expect(holds.map((h) => h.status)).toEqual([201, 201, 201, 201, 201]);
    const settle = (i: number, id: string) =>
      i < 3
        ? call(i, `/reservations/${id}/commit`, { method: 'POST' })
        : call(i, `/reservations/${id}`, { method: 'DELETE' });
    const settled = await Promise.all(holds.map((h, i) => settle(i, h.body.id)));
    expect(settled.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
    const states = await Promise.all(
      settled.map(async (response) => ((await response.json()) as ReservationBody).state),
    );
    expect(states).toEqual(['committed', 'committed', 'committed', 'released', 'released']);
    // A repeat, through the other instance, answers the same.
    const again = await call(1, `/reservations/${holds[0]?.body.id}/commit`, { method: 'POST' });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ state: 'committed' });
    for (const item of await items())
      expect(item).toEqual({ petId: 1, quantity: 2, reserved: 0, available: 2, status: 'available' });
    const changes = await history();
    expect(changes).toHaveLength(3);
    expect(changes.every((change) => change.kind === 'reservation_commit')).toBe(true);
  });
});
