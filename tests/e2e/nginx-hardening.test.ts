import type { Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AttackTarget,
  connectFrom,
  lateProbes,
  type ProbeResult,
  pipelinePatchThenGet,
  pipelineWithoutReading,
  probeUntil,
  startAttackTarget,
} from '../../support/hostile-load.js';
import { finalResponse } from '../../support/listening-app.js';
import { type NginxServer, nginxAvailable, startNginx } from '../../support/nginx-server.js';

/*
 * The guarantees of tests/e2e/connection-attacks.test.ts when the service runs behind deploy/'s nginx,
 * as a deployment runs it: the client faces nginx, and the service sees only nginx's address.
 */

const hasNginx = nginxAvailable();

function expectAllAnsweredWithinASecond(results: readonly ProbeResult[]): void {
  expect(results.length).toBeGreaterThan(5);
  const late = lateProbes(results);
  expect(late, `probes not answered 200 within 1 s: ${JSON.stringify(late.slice(0, 10))}`).toEqual([]);
}

describe.skipIf(!hasNginx)('the service behind nginx', () => {
  let target: AttackTarget;
  let nginx: NginxServer;
  let nginxPort: number;

  beforeAll(async () => {
    // Behind nginx every connection comes from nginx's address: deploy/petstore.env lifts the service's
    // own cap per address to the global one and bans no address, and nginx caps each client instead.
    target = await startAttackTarget(100, {
      PETSTORE_TRUST_PROXY: 'true',
      PETSTORE_MAX_CONNECTIONS_PER_ADDRESS: '4000',
      PETSTORE_PIPELINING_BAN_MS: '0',
    });
    nginx = await startNginx([`127.0.0.1:${target.port}`]);
    nginxPort = Number(new URL(nginx.url).port);
  }, 60_000);

  afterAll(async () => {
    await nginx?.stop();
    await target?.stop();
  });

  it('closes 2,000 silent connections after its 10 s header timeout, serving others throughout', async () => {
    const held: Socket[] = await Promise.all(Array.from({ length: 2_000 }, () => connectFrom(nginxPort, '127.0.0.2')));
    const openedAt = performance.now();
    const closedAt: number[] = [];
    for (const socket of held) socket.once('close', () => closedAt.push(performance.now() - openedAt));
    const hold = delay(16_000);
    const probes = await probeUntil(nginx.url, target.key, '/v1/inventory/1', hold);
    for (const socket of held) socket.destroy();
    expectAllAnsweredWithinASecond(probes);
    expect(closedAt.length).toBe(2_000);
    expect(Math.max(...closedAt)).toBeLessThan(15_000);
  }, 60_000);

  it('answers a GET pipelined behind a PATCH with the PATCH’s value, 30 times out of 30', async () => {
    const seen = await pipelinePatchThenGet(nginxPort, '127.0.0.3', target.key, 30, 200);
    expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => 201 + i));
  }, 60_000);

  it('keeps /metrics from the public with a 404 Error body, however fast it is asked for', async () => {
    const response = await fetch(`${nginx.url}/metrics`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      code: 'not_found',
      message: 'no resource lives at this path; the API is under /v1',
      status: 404,
    });
    const attack = pipelineWithoutReading(nginxPort, '127.0.0.4', 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n', 8, 6_000);
    const probes = await probeUntil(nginx.url, target.key, '/v1/inventory/1', attack);
    expectAllAnsweredWithinASecond(probes);
  }, 60_000);

  it('refuses a client’s 65th request in progress with 429 and the Error body', async () => {
    // 64 PATCHes whose bodies never finish arriving: each is in progress until nginx's body timeout.
    const head = [
      'PATCH /v1/inventory/1 HTTP/1.1',
      'Host: x',
      `Authorization: Bearer ${target.key}`,
      'Content-Type: application/json',
      'Content-Length: 100',
      '',
      '{',
    ].join('\r\n');
    const slow = await Promise.all(Array.from({ length: 64 }, () => connectFrom(nginxPort, '127.0.0.6')));
    try {
      for (const socket of slow) socket.write(head);
      await delay(500);
      const extra = await connectFrom(nginxPort, '127.0.0.6');
      let raw = '';
      extra.setEncoding('utf8').on('data', (text: string) => {
        raw += text;
      });
      extra.write('GET /v1/inventory/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await new Promise((resolve) => extra.once('close', resolve));
      const response = finalResponse(raw);
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(JSON.parse(response.body)).toMatchObject({ code: 'rate_limited', status: 429 });
      // Another address is not affected.
      expect((await fetch(`${nginx.url}/livez`)).status).toBe(200);
    } finally {
      for (const socket of slow) socket.destroy();
    }
  }, 60_000);
});
