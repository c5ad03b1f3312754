import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceProcess } from '../../support/service-process.js';
import { hasPostgresServer } from '../postgres/postgres-fixture.js';
import { type SharedPostgresInstances, startSharedPostgresInstances } from '../support/shared-postgres-instances.js';

/** How many POST requests an instance logged. */
const postsServed = (instance: ServiceProcess): number =>
  instance
    .stdout()
    .split('\n')
    .filter((line) => line.includes('"msg":"request"') && line.includes('"method":"POST"')).length;

describe.skipIf(!hasPostgresServer)('adjustments through two instances sharing one PostgreSQL', () => {
  let shared: SharedPostgresInstances | undefined;
  let key: string;
  let instances: readonly ServiceProcess[] = [];

  beforeAll(async () => {
    shared = await startSharedPostgresInstances(25);
    ({ key, instances } = shared);
  }, 60_000);

  afterAll(async () => {
    await shared?.stop();
  });

  const call = (instance: ServiceProcess, path: string, init: RequestInit = {}) =>
    fetch(`${instance.url}/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
    });

  it('takes exactly the stock there is: of 40 adjustments of -1 on 25, 25 are 200 and 15 are 409, with 25 changes', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        call(instances[i % 2] as ServiceProcess, '/inventory/1/adjustments', {
          method: 'POST',
          body: '{"delta":-1}',
        }).then(async (response) => ({ status: response.status, body: await response.text() })),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(25);
    const refused = answers.filter((a) => a.status === 409);
    expect(refused).toHaveLength(15);
    for (const answer of refused) expect(JSON.parse(answer.body)).toMatchObject({ code: 'insufficient_stock' });
    const [first, second] = instances as [ServiceProcess, ServiceProcess];
    for (const instance of [first, second]) {
      // Half the writes went to each instance, and both read the one shared entry. The request log is
      // written asynchronously: the last lines may follow the answers by a moment.
      await expect.poll(() => postsServed(instance), { timeout: 5_000 }).toBe(20);
      const item = await call(instance, '/inventory/1');
      expect(await item.json()).toEqual({ petId: 1, quantity: 0, reserved: 0, available: 0, status: 'sold' });
      expect(item.headers.get('etag')).toBe('"26"');
    }
    const history = (await (await call(second, '/inventory/1/changes?limit=1000')).json()) as { kind: string }[];
    expect(history).toHaveLength(25);
    expect(history.every((change) => change.kind === 'adjust')).toBe(true);
  });
});
