import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AttackTarget, startAttackTarget } from '../../support/hostile-load.js';
import { getOnce, silentConnections } from '../../support/keep-alive-burst.js';

/*
 * The server-wide connection cap against silent sockets from several addresses, each under the
 * per-address cap (so its eviction never applies), on the service as `npm start` runs it in production,
 * with low caps. Before, the silent sockets held the server's connections, and a keyed client from
 * another address was answered 503 until they timed out.
 */

/** Resolves to the first of `sockets` the server closes. */
const firstClosed = (sockets: readonly Socket[]): Promise<Socket> =>
  Promise.race(sockets.map((socket) => new Promise<Socket>((resolve) => socket.once('close', () => resolve(socket)))));

describe('silent connections from several addresses holding the whole server cap', () => {
  let target: AttackTarget;
  beforeAll(async () => {
    target = await startAttackTarget(10, {
      PETSTORE_MAX_CONNECTIONS: '40',
      PETSTORE_MAX_CONNECTIONS_PER_ADDRESS: '16',
      PETSTORE_IDLE_CONNECTION_GRACE_MS: '0',
      // Long, so that what frees a place here is the cap's eviction, not the first byte's timeout.
      PETSTORE_FIRST_BYTE_TIMEOUT_MS: '60000',
    });
  }, 60_000);
  afterAll(async () => {
    await target?.stop();
  });

  it('give way to a keyed client from another address, the address holding the most giving first', async () => {
    const crowded = await silentConnections(target.port, '127.0.0.51', 16);
    const others = [
      ...(await silentConnections(target.port, '127.0.0.52', 8)),
      ...(await silentConnections(target.port, '127.0.0.53', 8)),
      ...(await silentConnections(target.port, '127.0.0.54', 8)),
    ];
    const held = [...crowded, ...others];
    try {
      const closed = firstClosed(held);
      const answers: Array<number | string> = [];
      for (let i = 0; i < 10; i += 1)
        answers.push(await getOnce(`${target.url}/v1/inventory/1`, target.key, '127.0.0.55'));
      expect(answers).toEqual(Array.from({ length: 10 }, () => 200));
      expect(crowded).toContain(await closed);
    } finally {
      for (const socket of held) socket.destroy();
    }
  }, 30_000);
});

describe('a connection that never sends its first byte', () => {
  let target: AttackTarget;
  beforeAll(async () => {
    target = await startAttackTarget(1, {
      PETSTORE_FIRST_BYTE_TIMEOUT_MS: '300',
      PETSTORE_HEADERS_TIMEOUT_MS: '60000',
      PETSTORE_REQUEST_TIMEOUT_MS: '60000',
    });
  }, 60_000);
  afterAll(async () => {
    await target?.stop();
  });

  it('is closed after the first byte timeout, without an answer, long before the headers timeout', async () => {
    const [socket] = await silentConnections(target.port, '127.0.0.56', 1);
    if (socket === undefined) throw new Error('no connection');
    let received = 0;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    expect(received).toBe(0);
  }, 10_000);
});
