/**
 * The reservation writes of the postgres suite: each connection reserves one of a pet through HTTP and
 * commits what it reserved, in turn (POST /v1/inventory/{petId}/reservations, then POST
 * /v1/reservations/{id}/commit), so that every request is a write of a reservation and no key holds
 * more than one hold a connection. The pets are restocked first, outside the measurement, so that the
 * commits never run them out.
 */
import autocannon from 'autocannon';
import { LIST_PETS } from './http.js';
import { assertAllAnswered, CONNECTIONS, type LoadRun, withServerCpu } from './load.js';
import type { ServerProcess } from './server-process.js';

/** What each pet is set to before a run: more than any run commits. */
const RESTOCK = 1_000_000;

/** Sets every pet of the suite to RESTOCK, one PATCH each. */
async function restock(server: ServerProcess, headers: Readonly<Record<string, string>>): Promise<void> {
  for (let pet = 1; pet <= LIST_PETS; pet += 1) {
    const response = await fetch(`${server.origin}/v1/inventory/${pet}`, {
      method: 'PATCH',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ quantity: RESTOCK }),
    });
    if (response.status !== 200) throw new Error(`restocking pet ${pet} answered ${response.status}`);
    await response.arrayBuffer();
  }
}

/** Reserve then commit, over and over on each connection, each connection on pets of its own turn. */
export async function runReservationLoad(
  server: ServerProcess,
  headers: Readonly<Record<string, string>>,
  seconds: number,
): Promise<LoadRun> {
  await restock(server, headers);
  let clients = 0;
  return withServerCpu(server, async () => {
    const result = await autocannon({
      url: server.origin,
      connections: CONNECTIONS,
      duration: seconds,
      setupClient: (client) => {
        // Each connection starts on a pet of its own and moves on by one each reserve.
        let pet = clients % LIST_PETS;
        clients += 1;
        let id = '';
        client.setRequests([
          {
            method: 'POST',
            setupRequest: (request) => {
              pet = (pet % LIST_PETS) + 1;
              return {
                ...request,
                path: `/v1/inventory/${pet}/reservations`,
                headers: { ...headers, 'content-type': 'application/json' },
                body: '{"quantity":1,"ttlSeconds":60}',
              };
            },
            onResponse: (_status, body) => {
              id = (JSON.parse(body) as { id: string }).id;
            },
          },
          {
            method: 'POST',
            setupRequest: (request) => ({ ...request, path: `/v1/reservations/${id}/commit`, headers: { ...headers } }),
          },
        ]);
      },
    });
    assertAllAnswered(result, `reserve and commit on ${server.origin}`);
    return {
      rps: result.requests.total / result.duration,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      requests: result.requests.total,
    };
  });
}
