import { once } from 'node:events';
import { connect } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../src/adapters/http/create-http-app.js';
import { createMemoryAdapters } from '../../src/adapters/memory/memory-adapters.js';
import { NodeKeyCrypto } from '../../src/adapters/system/node-key-crypto.js';
import { createInventoryCore } from '../../src/application/inventory-core.js';
import { listen, type RunningServer } from '../../src/composition/http-server.js';
import { ManualClock } from '../support/manual-clock.js';

/** Sends raw bytes and resolves to everything the server wrote before closing the connection. */
async function raw(port: number, request: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.end(request);
  let out = '';
  socket.setEncoding('utf8').on('data', (t: string) => {
    out += t;
  });
  await once(socket, 'close');
  return out;
}

const bodyOf = (response: string): unknown => JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));

describe('requests Node refuses before the app sees them', () => {
  let running: RunningServer;
  let port: number;
  beforeAll(async () => {
    const clock = new ManualClock();
    const crypto = new NodeKeyCrypto();
    const core = createInventoryCore({
      ...createMemoryAdapters(clock),
      clock,
      keyGenerator: crypto,
      keyHasher: crypto,
    });
    const app = createHttpApp({
      ...core,
      clock,
      readiness: () => true,
      options: {
        sunsetAt: new Date('2027-06-30T00:00:00Z'),
        servers: { production: 'http://127.0.0.1/v1', staging: 'http://127.0.0.1/v1' },
        trustProxy: false,
      },
    });
    const logger = pino({ level: 'silent' });
    running = await listen(app.callback(), {
      host: '127.0.0.1',
      port: 0,
      drainTimeoutMs: 1_000,
      logger,
      setReady: () => {},
    });
    port = Number(new URL(running.url).port);
  });
  afterAll(async () => {
    await running.drain();
  });

  it('answers a malformed request line with the Error body, 400 bad_request', async () => {
    const response = await raw(port, 'NOT A REQUEST\r\n\r\n');
    expect(response).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(response).toMatch(/\r\nContent-Type: application\/json; charset=utf-8\r\n/);
    expect(response).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/);
    expect(bodyOf(response)).toEqual({ code: 'bad_request', message: expect.any(String), status: 400 });
  });

  it('answers headers past Node’s limit with 431 header_fields_too_large', async () => {
    const response = await raw(port, `GET /v1/inventory HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(response).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(response)).toEqual({ code: 'header_fields_too_large', message: expect.any(String), status: 431 });
  });

  it('still serves well-formed requests on other connections', async () => {
    const res = await fetch(`${running.url}/livez`);
    expect(res.status).toBe(200);
  });
});
