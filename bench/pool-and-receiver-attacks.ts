/**
 * Two attacks of tests/e2e/connection-caps.test.ts and tests/e2e/dead-webhook-receivers.test.ts, measured
 * for bench/attacks.ts: a keep-alive pool of 250 warm connections from one address sending 300 requests
 * at once (what it gets: network errors, 429s, 200s), 256 silent connections from one address and a
 * request from it behind them, and 20 webhook endpoints that never answer beside a healthy one (how late
 * the healthy one gets each event).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { healthyEndpointLatency } from '../support/dead-webhooks.js';
import type { AttackTarget } from '../support/hostile-load.js';
import { getOnce, keepAliveBurst, silentConnections } from '../support/keep-alive-burst.js';

const ROUNDS = 5;

/** The connection attacks' table: a round each, from an address of its own. */
export async function poolAttackLines(target: AttackTarget): Promise<string[]> {
  const lines = [
    '| 250 warm keep-alive connections, 300 GETs at once | network errors | 429 | 200 |',
    '|---|---|---|---|',
  ];
  for (let round = 1; round <= ROUNDS; round += 1) {
    const outcome = await keepAliveBurst(`${target.url}/v1/inventory/1`, target.key, `127.0.2.${round}`, 250, 300);
    lines.push(
      `| round ${round} | ${outcome.networkErrors} | ${outcome.statuses[429] ?? 0} | ${outcome.statuses[200] ?? 0} |`,
    );
    await delay(1_000);
  }
  lines.push(
    '',
    '| 256 silent connections, then a GET a 100 ms from the same address | answers in the first 3 s |',
    '|---|---|',
  );
  for (let round = 1; round <= ROUNDS; round += 1) {
    const from = `127.0.3.${round}`;
    const held = await silentConnections(target.port, from, 256);
    const seen: Array<number | string> = [];
    const until = performance.now() + 3_000;
    while (performance.now() < until) {
      seen.push(await getOnce(`${target.url}/v1/inventory/1`, target.key, from));
      await delay(100);
    }
    for (const socket of held) socket.destroy();
    const counts = new Map<string, number>();
    for (const answer of seen) counts.set(String(answer), (counts.get(String(answer)) ?? 0) + 1);
    lines.push(`| round ${round} | ${[...counts].map(([answer, n]) => `${n} x ${answer}`).join(', ')} |`);
    await delay(1_000);
  }
  return lines;
}

/** The dead receivers' table: a fresh service each round. */
export async function deadReceiverLines(): Promise<string[]> {
  const lines = [
    '| 20 endpoints that never answer, 1 healthy; 10 changes 300 ms apart | healthy endpoint: events later than 2 s | median ms | worst ms |',
    '|---|---|---|---|',
  ];
  for (let round = 1; round <= 3; round += 1) {
    const { latenciesMs } = await healthyEndpointLatency({ dead: 20, events: 10, gapMs: 300, waitMs: 30_000 });
    const sorted = [...latenciesMs].sort((a, b) => a - b);
    const ms = (n: number | undefined): string =>
      n === undefined || !Number.isFinite(n) ? 'not within 30 s' : String(Math.round(n));
    lines.push(
      `| round ${round} | ${latenciesMs.filter((n) => n > 2_000).length} / 10 | ${ms(sorted[Math.floor(sorted.length / 2)])} | ${ms(sorted.at(-1))} |`,
    );
  }
  return lines;
}
