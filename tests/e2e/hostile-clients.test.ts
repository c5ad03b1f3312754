import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aPet } from '../../src/testing/index.js';
import {
  exchange,
  finalResponse,
  type ListeningApp,
  openSocket,
  startListeningApp,
} from '../../support/listening-app.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let app: ListeningApp;
let key: string;
beforeAll(async () => {
  app = await startListeningApp();
  key = await app.key();
  const added = await app.core.addPets.execute([aPet(1)]);
  expect(added.ok).toBe(true);
});
afterAll(async () => {
  await app.running.drain();
});

const patchHead = (headers: readonly string[], contentLength: number): string =>
  [
    'PATCH /v1/inventory/1 HTTP/1.1',
    'Host: 127.0.0.1',
    'Content-Type: application/json',
    `Content-Length: ${contentLength}`,
    ...headers,
    '',
    '',
  ].join('\r\n');

/** What happened to a client that sends a huge body and never stops writing. */
interface Flood {
  readonly response: string;
  /** Whether the server closed the connection before the deadline. */
  readonly closedByServer: boolean;
}

/**
 * Sends a request head declaring a 100 GB body, then writes body bytes as fast as the socket takes
 * them, until the server closes the connection or `deadlineMs` passes.
 */
async function flood(headers: readonly string[], deadlineMs = 5_000): Promise<Flood> {
  const socket: Socket = await openSocket(app.port);
  let response = '';
  let stopped = false;
  socket.setEncoding('utf8').on('data', (t: string) => {
    response += t;
  });
  socket.on('error', () => {});
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const pump = (): void => {
    while (!stopped && !socket.destroyed && socket.write(chunk)) {
      // Keep writing while the socket takes more.
    }
  };
  socket.on('drain', pump);
  socket.write(patchHead(headers, 100_000_000_000));
  pump();
  // Not `once`: it rejects on the EPIPE or ECONNRESET that the writes meet once the server has closed.
  const closed = new Promise<boolean>((resolve) => socket.once('close', () => resolve(true)));
  const timer = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), deadlineMs));
  const closedByServer = await Promise.race([closed, timer]);
  stopped = true;
  socket.destroy();
  return { response, closedByServer };
}

describe('a body the service will not read', () => {
  it('closes the connection after a 401, even though the client keeps sending', async () => {
    const result = await flood([]);
    const response = finalResponse(result.response);
    expect(response.status).toBe(401);
    expect(response.headers.get('connection')).toBe('close');
    expect(result.closedByServer).toBe(true);
  });

  it('closes the connection after a 413 the same way', async () => {
    const result = await flood([`Authorization: Bearer ${key}`]);
    const response = finalResponse(result.response);
    expect(response.status).toBe(413);
    expect(response.headers.get('connection')).toBe('close');
    expect(result.closedByServer).toBe(true);
  });

  it('keeps the connection of a request whose body was read', async () => {
    const socket = await openSocket(app.port);
    let out = '';
    socket.setEncoding('utf8').on('data', (t: string) => {
      out += t;
    });
    const body = '{"quantity":4}';
    socket.write(`${patchHead([`Authorization: Bearer ${key}`], body.length)}${body}`);
    await expect.poll(() => out.includes('"quantity":4')).toBe(true);
    expect(finalResponse(out).headers.get('connection')).toBe('keep-alive');
    socket.destroy();
  });
});

describe('Expect: 100-continue', () => {
  it('is not answered when the key is missing: the client gets the 401 and sends no body', async () => {
    const raw = await exchange(app.port, patchHead(['Expect: 100-continue'], 14));
    expect(raw).not.toMatch(/HTTP\/1\.1 100/);
    expect(finalResponse(raw).status).toBe(401);
  });

  it('is answered once the key and the limits have passed, and the body is then read', async () => {
    const socket = await openSocket(app.port);
    let out = '';
    socket.setEncoding('utf8').on('data', (t: string) => {
      out += t;
    });
    socket.write(patchHead([`Authorization: Bearer ${key}`, 'Expect: 100-Continue'], 14));
    await expect.poll(() => out).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n$/);
    socket.write('{"quantity":5}');
    await expect.poll(() => out.includes('"quantity":5')).toBe(true);
    expect(finalResponse(out).status).toBe(200);
    socket.destroy();
  });

  it('answers 413 at once, without 100 Continue, when the declared length is over the limit', async () => {
    const socket = await openSocket(app.port);
    let out = '';
    socket.setEncoding('utf8').on('data', (t: string) => {
      out += t;
    });
    socket.on('error', () => {});
    socket.write(patchHead([`Authorization: Bearer ${key}`, 'Expect: 100-continue'], 16 * 1024 + 1));
    await expect.poll(() => out).toMatch(/\r\n\r\n\{.*\}$/);
    expect(out).not.toMatch(/HTTP\/1\.1 100/);
    const response = finalResponse(out);
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'payload_too_large', status: 413 });
    expect(response.headers.get('connection')).toBe('close');
    socket.destroy();
  });
});

describe('Content-Encoding: identity in any casing', () => {
  it.each(['identity', 'IDENTITY', 'Identity'])('takes %s as no encoding at all', async (encoding) => {
    const response = await fetch(`${app.running.url}/v1/inventory/1`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-encoding': encoding },
      body: '{"quantity":6}',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ quantity: 6 });
  });
});

/** Sends one raw request head (closing the connection after it) and parses the answer. */
const ask = async (lines: readonly string[]) =>
  finalResponse(await exchange(app.port, [...lines, 'Connection: close', '', ''].join('\r\n')));

describe('ambiguous requests', () => {
  it('refuses two Authorization headers with 401, even when one of them holds a valid key', async () => {
    for (const order of [
      [`Authorization: Bearer ${key}`, 'Authorization: Bearer psk_nope'],
      ['authorization: Bearer psk_nope', `AUTHORIZATION: Bearer ${key}`],
      [`Authorization: Bearer ${key}`, `Authorization: Bearer ${key}`],
    ]) {
      const response = await ask(['GET /v1/inventory HTTP/1.1', 'Host: x', ...order]);
      expect(response.status).toBe(401);
      expect(JSON.parse(response.body)).toMatchObject({ code: 'unauthorized', status: 401 });
      expect(JSON.parse(response.body).message).toMatch(/more than one Authorization/);
      // Limited like any request without a valid key.
      expect(response.headers.get('x-ratelimit-limit')).toBe('60');
    }
  });

  it('refuses two Host headers with 400 bad_request', async () => {
    const response = await ask(['GET /livez HTTP/1.1', 'Host: a.example', 'host: b.example']);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'bad_request', status: 400 });
    expect(response.headers.get('x-request-id')).toMatch(UUID);
  });

  it('refuses HTTP/1.1 without Host with the Error body and a request id', async () => {
    const response = await ask(['GET /v1/inventory HTTP/1.1', `Authorization: Bearer ${key}`]);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(JSON.parse(response.body)).toMatchObject({ code: 'bad_request', status: 400 });
    expect(response.headers.get('x-request-id')).toMatch(UUID);
  });

  it('serves HTTP/1.0 without Host, which that version allows', async () => {
    const response = finalResponse(await exchange(app.port, 'GET /livez HTTP/1.0\r\n\r\n'));
    expect(response.status).toBe(200);
  });

  it.each(['something', '100-continue, something', 'x=1'])(
    'answers Expect: %s with 417 expectation_failed and the Error body',
    async (value) => {
      const response = await ask(['GET /livez HTTP/1.1', 'Host: x', `Expect: ${value}`]);
      expect(response.status).toBe(417);
      expect(JSON.parse(response.body)).toMatchObject({ code: 'expectation_failed', status: 417 });
      expect(response.headers.get('x-request-id')).toMatch(UUID);
    },
  );
});
