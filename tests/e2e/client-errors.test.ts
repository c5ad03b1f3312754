import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/adapters/http/server/http-server.js';
import { exchange as raw, startListeningApp } from '../../support/listening-app.js';

const bodyOf = (response: string): unknown => JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));

describe('requests Node refuses before the app sees them', () => {
  let running: RunningServer;
  let port: number;
  beforeAll(async () => {
    const app = await startListeningApp();
    running = app.running;
    port = app.port;
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
