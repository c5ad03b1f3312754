import type { Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AttackTarget, startAttackTarget } from '../../support/hostile-load.js';
import { getOnce, keepAliveBurst, silentConnections } from '../../support/keep-alive-burst.js';

/*
 * The per-address connection cap (256) against clients from one address, on the service as `npm start`
 * runs it in production. Before it counted only busy connections first, a pool's warm sockets and a
 * burst over them met resets (44 of 300), and 256 silent sockets locked their address out.
 * bench/attacks.ts measures the same.
 */

let target: AttackTarget;

beforeAll(async () => {
  target = await startAttackTarget(10);
}, 60_000);

afterAll(async () => {
  await target?.stop();
});

describe('a keep-alive pool of 250 warm connections sending 300 requests at once, from one address', () => {
  it('gets an HTTP answer to every request: no reset, no close before the answer', async () => {
    const outcome = await keepAliveBurst(`${target.url}/v1/inventory/1`, target.key, '127.0.0.30', 250, 300);
    expect(outcome.errorCodes).toEqual([]);
    // Each request is answered 200, or 429 when its address held 256 connections all busy.
    expect(Object.keys(outcome.statuses).filter((status) => status !== '200' && status !== '429')).toEqual([]);
    expect(outcome.statuses[200]).toBeGreaterThanOrEqual(256 - 50);
  }, 60_000);
});

describe('256 silent connections from one address', () => {
  it('lock out no request from that address: each is answered, and within 3 s it is a 200', async () => {
    const held: Socket[] = await silentConnections(target.port, '127.0.0.31', 256);
    try {
      const seen: Array<number | string> = [];
      const until = performance.now() + 3_000;
      while (performance.now() < until && seen.at(-1) !== 200) {
        seen.push(await getOnce(`${target.url}/v1/inventory/1`, target.key, '127.0.0.31'));
        await delay(100);
      }
      expect(seen.filter((answer) => answer !== 200 && answer !== 429)).toEqual([]);
      expect(seen.at(-1)).toBe(200);
    } finally {
      for (const socket of held) socket.destroy();
    }
  }, 30_000);
});
