import type { Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AttackTarget,
  connectFrom,
  lateProbes,
  openDescriptors,
  type ProbeResult,
  pipelinePatchThenGet,
  pipelineWithoutReading,
  probeUntil,
  residentBytes,
  sampleUntil,
  startAttackTarget,
} from '../../support/hostile-load.js';

/*
 * Attacks of a client that needs no key (and, for the list, one that has one), against the service as
 * `npm start` runs it in production: one process, SQLite, the writer thread, the default connection
 * limits. Each attacker connects from a loopback address of its own (127.0.0.2, ...), as another host
 * would; the well-behaved client, from 127.0.0.1, must be answered within a second throughout.
 * bench/attacks.ts runs the same attacks and prints what they cost the server.
 */

const PETS = 10_000;
const MB = 1024 * 1024;

let target: AttackTarget;
let service: { readonly url: string };
let key: string;
let port: number;
let pid: number;

beforeAll(async () => {
  target = await startAttackTarget(PETS);
  ({ key, port, pid } = target);
  service = target;
}, 60_000);

afterAll(async () => {
  await target?.stop();
});

/** Fails with every slow or failed probe listed, when any answer was not a 200 within a second. */
function expectAllAnsweredWithinASecond(results: readonly ProbeResult[]): void {
  expect(results.length).toBeGreaterThan(5);
  const late = lateProbes(results);
  expect(late, `probes not answered 200 within 1 s: ${JSON.stringify(late.slice(0, 10))}`).toEqual([]);
}

describe('4,000 silent connections from one address', () => {
  it('hold no descriptors once refused: below 200 within 15 s of the 408s, and others are served throughout', async () => {
    const held: Socket[] = [];
    for (let i = 0; i < 4_000; i += 200) {
      held.push(...(await Promise.all(Array.from({ length: 200 }, () => connectFrom(port, '127.0.0.2')))));
    }
    const openedAt = performance.now();
    const hold = delay(40_000);
    const [probes, descriptors] = await Promise.all([
      probeUntil(service.url, key, '/v1/inventory/1', hold),
      sampleUntil(() => ({ atMs: performance.now() - openedAt, open: openDescriptors(pid) }), hold, 500),
    ]);
    for (const socket of held) socket.destroy();

    expectAllAnsweredWithinASecond(probes);
    // The headers timeout is 10 s: from 25 s on (its 408s plus 15 s) the server holds fewer than 200.
    const late = descriptors.filter((d) => d.atMs >= 25_000);
    expect(late.length).toBeGreaterThan(10);
    expect(
      late.filter((d) => d.open >= 200),
      JSON.stringify(descriptors),
    ).toEqual([]);
  }, 90_000);
});

describe('connections that pipeline requests without reading the answers', () => {
  it.each([
    ['GET /metrics, without a key', `GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n`, '127.0.0.3'],
    [
      `GET /v1/inventory of ${PETS.toLocaleString('en')} pets, with a key`,
      `GET /v1/inventory HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n\r\n`,
      '127.0.0.4',
    ],
  ])(
    '%s, 8 of them for 6 s: others are answered within 1 s during and after, and RSS stays under 400 MB',
    async (_, template, from) => {
      const attack = pipelineWithoutReading(port, from, template.replace('{key}', key), 8, 6_000);
      const watch = attack.then(() => delay(8_000));
      const [probes, rss] = await Promise.all([
        probeUntil(service.url, key, '/v1/inventory/1', watch),
        sampleUntil(() => residentBytes(pid), watch),
        attack,
      ]);
      expectAllAnsweredWithinASecond(probes);
      // A build-up of unread answers would take gigabytes within the 6 s; what stays is V8's heap, which
      // grows under the load and is given back lazily: its peak varied from under 300 to 347 MB across runs
      // of the same builds (2026-11-24, the service with reservations and stock events).
      expect(Math.max(...rss) / MB).toBeLessThan(400);
    },
    60_000,
  );
});

describe('2,000 connections that pipeline two /docs asset requests and close early', () => {
  it('leave the open descriptors where they were (±20)', async () => {
    const before = openDescriptors(pid);
    const twice = 'GET /docs/scalar.js HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(2);
    // From 100 addresses, 20 connections each: 40 requests an address, within the per-address limit, so
    // that every one of them is served, not refused.
    for (let wave = 0; wave < 20; wave += 1) {
      await Promise.all(
        Array.from({ length: 100 }, async (_, i) => {
          const socket = await connectFrom(port, `127.0.1.${i + 1}`);
          socket.write(twice);
          await Promise.race([new Promise((resolve) => socket.once('data', resolve)), delay(200)]);
          socket.destroy();
        }),
      );
    }
    await expect
      .poll(() => Math.abs(openDescriptors(pid) - before), { timeout: 15_000, interval: 250 })
      .toBeLessThanOrEqual(20);
  }, 90_000);
});

describe('a PATCH and a GET pipelined on one connection', () => {
  it('answer the GET with the value the PATCH wrote, 30 times out of 30', async () => {
    const seen = await pipelinePatchThenGet(port, '127.0.0.5', key, 30, 100);
    expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => 101 + i));
  }, 60_000);
});
