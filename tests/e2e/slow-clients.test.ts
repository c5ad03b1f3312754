import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aPet } from '../../src/testing/index.js';
import { connectFrom } from '../../support/hostile-load.js';
import { finalResponse, type ListeningApp, openSocket, startListeningApp } from '../../support/listening-app.js';

// Small limits, so that the test waits a second, not the production 10 s and 30 s. The bounds below
// leave a second and a half of slack for a busy machine: what they catch is Node's own defaults, under
// which the same clients hold on for 60 s (headers) and 300 s (a request), checked every 30 s.
const LIMITS = { headersTimeoutMs: 600, requestTimeoutMs: 1_200, keepAliveTimeoutMs: 400, maxConnections: 50 };
const SLACK_MS = 1_500;

/** What a trickling client saw: everything the server wrote, and when the server closed on it. */
interface Cut {
  readonly response: string;
  readonly afterMs: number;
}

/**
 * Writes `head`, then one byte of `drip` every 50 ms, until the server closes the connection; gives up
 * (failing the test) after `giveUpMs`.
 */
async function trickle(port: number, head: string, drip: string, giveUpMs: number): Promise<Cut> {
  const socket: Socket = await openSocket(port);
  const startedAt = performance.now();
  let response = '';
  socket.setEncoding('utf8').on('data', (t: string) => {
    response += t;
  });
  socket.on('error', () => {});
  socket.write(head);
  let next = 0;
  const timer = setInterval(() => {
    if (!socket.destroyed) socket.write(drip[next++ % drip.length] as string);
  }, 50);
  const closed = await new Promise<boolean>((resolve) => {
    socket.once('close', () => resolve(true));
    setTimeout(() => resolve(false), giveUpMs);
  });
  clearInterval(timer);
  socket.destroy();
  if (!closed) throw new Error(`the server still held the connection after ${giveUpMs} ms`);
  return { response, afterMs: performance.now() - startedAt };
}

/** Asks for /livez every 50 ms until `done` settles, and answers every status seen. */
async function probeWhile(url: string, done: Promise<unknown>): Promise<number[]> {
  const statuses: number[] = [];
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  while (!finished) {
    statuses.push((await fetch(`${url}/livez`)).status);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return statuses;
}

describe('slow and idle clients', () => {
  let app: ListeningApp;
  let key: string;
  beforeAll(async () => {
    app = await startListeningApp({ limits: LIMITS });
    key = await app.key();
    expect((await app.core.addPets.execute([aPet(1)])).ok).toBe(true);
  });
  afterAll(async () => {
    await app.running.drain();
  });

  it('cuts a client that sends its headers a byte at a time once the headers timeout passes', async () => {
    const cut = trickle(app.port, 'GET /livez HTTP/1.1\r\nHost: x\r\n', 'X-Slow: 1\r\n', 10_000);
    const served = await probeWhile(app.running.url, cut);
    const { response, afterMs } = await cut;
    expect(finalResponse(response).status).toBe(408);
    expect(JSON.parse(finalResponse(response).body)).toMatchObject({ code: 'request_timeout' });
    expect(afterMs).toBeGreaterThanOrEqual(LIMITS.headersTimeoutMs - 50);
    expect(afterMs).toBeLessThan(LIMITS.headersTimeoutMs + SLACK_MS);
    // Others were served all along.
    expect(served.length).toBeGreaterThan(3);
    expect(new Set(served)).toEqual(new Set([200]));
  });

  it('cuts a client that sends its body a byte at a time once the request timeout passes', async () => {
    const head = [
      'PATCH /v1/inventory/1 HTTP/1.1',
      'Host: x',
      `Authorization: Bearer ${key}`,
      'Content-Type: application/json',
      'Content-Length: 1000',
      '',
      '',
    ].join('\r\n');
    const cut = trickle(app.port, head, ' ', 10_000);
    const served = await probeWhile(app.running.url, cut);
    const { afterMs } = await cut;
    expect(afterMs).toBeGreaterThanOrEqual(LIMITS.requestTimeoutMs - 50);
    expect(afterMs).toBeLessThan(LIMITS.requestTimeoutMs + SLACK_MS);
    expect(new Set(served)).toEqual(new Set([200]));
  });

  it('closes an idle keep-alive connection once the keep-alive timeout passes', async () => {
    const socket = await openSocket(app.port);
    const startedAt = performance.now();
    // Read, or the close is never seen.
    socket.on('error', () => {}).resume();
    socket.write('GET /livez HTTP/1.1\r\nHost: x\r\n\r\n');
    const closedAfter = await new Promise<number>((resolve) =>
      socket.once('close', () => resolve(performance.now() - startedAt)),
    );
    expect(closedAfter).toBeGreaterThanOrEqual(LIMITS.keepAliveTimeoutMs - 50);
    // Node adds a second (keepAliveTimeoutBuffer), so that a client about to reuse it is not cut.
    expect(closedAfter).toBeLessThan(LIMITS.keepAliveTimeoutMs + 1_000 + SLACK_MS);
  });
});

describe('the cap on open connections', () => {
  it('answers connections past the cap 503 with Retry-After and the Error body, and serves again once some have closed', async () => {
    const app = await startListeningApp({ limits: { maxConnections: 3 } });
    try {
      const held = await Promise.all([1, 2, 3].map(() => openSocket(app.port)));
      const refused = finalResponse(await answerOnArrival(app.port, '127.0.0.1'));
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(JSON.parse(refused.body)).toEqual({
        code: 'unavailable',
        message: 'the server holds as many connections as it takes; try again in 1 s',
        status: 503,
      });

      for (const socket of held) socket.destroy();
      await expect.poll(async () => (await fetch(`${app.running.url}/livez`)).status).toBe(200);
    } finally {
      await app.running.drain();
    }
  });
});

/**
 * Everything the server writes to a connection from `from` that asks for /livez, until it closes it:
 * nothing when it was closed on arrival without an answer.
 */
async function answerOnArrival(port: number, from: string): Promise<string> {
  const socket = await connectFrom(port, from);
  let answer = '';
  socket.setEncoding('utf8').on('data', (t: string) => {
    answer += t;
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  if (!socket.destroyed) socket.write('GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  await closed;
  return answer;
}

/** Whether a connection from `from` is closed by the server before it answers a /livez. */
const refusedOnArrival = async (port: number, from: string): Promise<boolean> =>
  (await answerOnArrival(port, from)) === '';

describe('the cap per client address', () => {
  it('answers a client’s connection past its cap 429 with Retry-After while its others are young, and serves other addresses all the same', async () => {
    const app = await startListeningApp({ limits: { maxConnectionsPerAddress: 3, idleConnectionGraceMs: 60_000 } });
    try {
      const held = await Promise.all([1, 2, 3].map(() => connectFrom(app.port, '127.0.0.8')));
      const refused = finalResponse(await answerOnArrival(app.port, '127.0.0.8'));
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(JSON.parse(refused.body)).toEqual({
        code: 'too_many_connections',
        message: 'this client address holds as many connections as the server gives one address; try again in 1 s',
        status: 429,
      });
      expect(finalResponse(await answerOnArrival(app.port, '127.0.0.9')).status).toBe(200);
      for (const socket of held) socket.destroy();
      await expect.poll(async () => finalResponse(await answerOnArrival(app.port, '127.0.0.8')).status).toBe(200);
    } finally {
      await app.running.drain();
    }
  });

  it('closes the address’s oldest connection idle past the grace to serve a newcomer, never one with a request in progress', async () => {
    const app = await startListeningApp({ limits: { maxConnectionsPerAddress: 3, idleConnectionGraceMs: 300 } });
    try {
      const key = await app.key();
      expect((await app.core.addPets.execute([aPet(1)])).ok).toBe(true);
      const silent = await connectFrom(app.port, '127.0.0.13');
      const silentClosed = new Promise<void>((resolve) => silent.once('close', () => resolve()));
      // Two connections that stay busy: each sends a body slower than the grace, a byte at a time.
      const busy = await Promise.all([1, 2].map(() => connectFrom(app.port, '127.0.0.13')));
      const head = `PATCH /v1/inventory/1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
      for (const socket of busy) socket.write(head);
      const drip = setInterval(() => {
        for (const socket of busy) if (!socket.destroyed) socket.write(' ');
      }, 50);
      try {
        await new Promise((resolve) => setTimeout(resolve, 400));
        expect(finalResponse(await answerOnArrival(app.port, '127.0.0.13')).status).toBe(200);
        await silentClosed;
        expect(busy.map((socket) => socket.destroyed)).toEqual([false, false]);
      } finally {
        clearInterval(drip);
        for (const socket of busy) socket.destroy();
      }
    } finally {
      await app.running.drain();
    }
  });

  it('closes a connection pipelining past its bound and refuses its address for the ban’s time', async () => {
    const app = await startListeningApp({ limits: { maxPipelinedRequests: 2, pipeliningBanMs: 1_500 } });
    try {
      const socket = await connectFrom(app.port, '127.0.0.10');
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.write('GET /livez HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(10));
      await closed;
      expect(await refusedOnArrival(app.port, '127.0.0.10')).toBe(true);
      expect(await refusedOnArrival(app.port, '127.0.0.11')).toBe(false);
      await expect.poll(() => refusedOnArrival(app.port, '127.0.0.10'), { timeout: 5_000, interval: 250 }).toBe(false);
    } finally {
      await app.running.drain();
    }
  });

  it('runs a connection’s pipelined requests within the bound, in order', async () => {
    const app = await startListeningApp({ limits: { maxPipelinedRequests: 2 } });
    try {
      const socket = await connectFrom(app.port, '127.0.0.12');
      let raw = '';
      socket.setEncoding('utf8').on('data', (t: string) => {
        raw += t;
      });
      socket.write(['/livez', '/readyz', '/livez'].map((path) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`).join(''));
      await expect
        .poll(() => raw.match(/"status":"(live|ready)"/g))
        .toEqual(['"status":"live"', '"status":"ready"', '"status":"live"']);
      socket.destroy();
    } finally {
      await app.running.drain();
    }
  });
});
