import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { aPet } from '../../src/testing/index.js';
import { type HttpFixture, startHttpFixture } from '../http/support/http-fixture.js';
import { delegateInventory } from '../support/delegate-inventory.js';

interface Observed {
  readonly method: string;
  readonly route: string;
  readonly status: number;
}

describe('a request whose client left before its answer', () => {
  let fx: HttpFixture | undefined;
  afterEach(async () => {
    await fx?.close();
  });

  it('is counted as 499 (client closed the request, as nginx labels it), not as the 404 Koa starts with', async () => {
    let writeStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      writeStarted = resolve;
    });
    let releaseWrite: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      releaseWrite = resolve;
    });
    const observed: Observed[] = [];
    let observedOne: () => void = () => {};
    const firstObserved = new Promise<void>((resolve) => {
      observedOne = resolve;
    });
    const metered = await startHttpFixture({
      inventory: (memory) =>
        delegateInventory(memory, {
          write: async (command) => {
            writeStarted();
            await released;
            return memory.write(command);
          },
        }),
      metrics: {
        requests: {
          observe: (method, route, status) => {
            observed.push({ method, route, status });
            observedOne();
          },
        },
      },
    });
    fx = metered;
    await metered.addPets(aPet(1));
    const bearer = await metered.bearer('pro');

    const body = '{"quantity":5}';
    const client = request(`${metered.origin}/v1/inventory/1`, {
      method: 'PATCH',
      headers: { authorization: bearer, 'content-type': 'application/json', 'content-length': body.length },
    });
    client.on('error', () => {});
    client.end(body);
    await started;
    client.destroy();
    await firstObserved;
    releaseWrite();

    expect(observed).toEqual([{ method: 'PATCH', route: '/v1/inventory/:petId', status: 499 }]);
  });
});
