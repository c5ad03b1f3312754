/**
 * What the attacks of tests/e2e/connection-attacks.test.ts cost the server, measured on the checkout it
 * runs from: the well-behaved client's latency (one keyed GET every 250 ms, 10 s to answer), the server's
 * open descriptors and its resident memory, during each attack and for 8 s after it.
 * Then what a keep-alive pool's burst, silent connections and dead webhook receivers cost (see
 * bench/pool-and-receiver-attacks.ts).
 * Then what one key's holds cost the others (bench/hold-attacks.ts), on services of their own.
 * Usage: npm run bench:attacks (about five minutes; the figures are printed, docs/operations.md keeps them).
 */
import type { Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import {
  type AttackTarget,
  connectFrom,
  openDescriptors,
  pipelinePatchThenGet,
  pipelineWithoutReading,
  probeUntil,
  residentBytes,
  sampleUntil,
  startAttackTarget,
} from '../support/hostile-load.js';
import { holdAttacks } from './hold-attacks.js';
import { deadReceiverLines, poolAttackLines } from './pool-and-receiver-attacks.js';

const PETS = 10_000;
const MB = 1024 * 1024;

interface Figures {
  readonly attack: string;
  readonly probes: number;
  /** Probes that got no 200 within 10 s. */
  readonly failed: number;
  readonly medianMs: number;
  readonly worstMs: number;
  readonly peakDescriptors: number;
  readonly endDescriptors: number;
  readonly peakRssMb: number;
}

async function measure(target: AttackTarget, attack: string, run: () => Promise<unknown>): Promise<Figures> {
  const attacked = run();
  const watch = attacked.then(() => delay(8_000));
  const [probes, samples] = await Promise.all([
    probeUntil(target.url, target.key, '/v1/inventory/1', watch, { timeoutMs: 10_000 }),
    sampleUntil(() => ({ fds: openDescriptors(target.pid), rss: residentBytes(target.pid) }), watch),
  ]);
  const answered = probes.filter((p) => p.status === 200).map((p) => p.ms);
  answered.sort((a, b) => a - b);
  return {
    attack,
    probes: probes.length,
    failed: probes.length - answered.length,
    medianMs: answered[Math.floor(answered.length / 2)] ?? Number.NaN,
    worstMs: probes.some((p) => p.status !== 200) ? Number.POSITIVE_INFINITY : (answered.at(-1) ?? Number.NaN),
    peakDescriptors: Math.max(...samples.map((s) => s.fds)),
    endDescriptors: samples.at(-1)?.fds ?? Number.NaN,
    peakRssMb: Math.round(Math.max(...samples.map((s) => s.rss)) / MB),
  };
}

async function silentSockets(target: AttackTarget): Promise<void> {
  const held: Socket[] = [];
  for (let i = 0; i < 4_000; i += 200) {
    held.push(...(await Promise.all(Array.from({ length: 200 }, () => connectFrom(target.port, '127.0.0.2')))));
  }
  await delay(40_000);
  for (const socket of held) socket.destroy();
}

async function docsThenClose(target: AttackTarget): Promise<void> {
  const twice = 'GET /docs/scalar.js HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(2);
  for (let wave = 0; wave < 20; wave += 1) {
    await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const socket = await connectFrom(target.port, `127.0.1.${i + 1}`);
        socket.write(twice);
        await Promise.race([new Promise((resolve) => socket.once('data', resolve)), delay(200)]);
        socket.destroy();
      }),
    );
  }
}

async function main(): Promise<void> {
  const target = await startAttackTarget(PETS);
  try {
    const list = `GET /v1/inventory HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${target.key}\r\n\r\n`;
    const rows = [
      await measure(target, '4,000 silent sockets, held 40 s', () => silentSockets(target)),
      await measure(target, '8 connections pipelining GET /metrics, 6 s', () =>
        pipelineWithoutReading(target.port, '127.0.0.3', 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n', 8, 6_000),
      ),
      await measure(target, `8 connections pipelining the list of ${PETS} pets with a key, 6 s`, () =>
        pipelineWithoutReading(target.port, '127.0.0.4', list, 8, 6_000),
      ),
      await measure(target, '2,000 connections pipelining 2 x /docs/scalar.js, closed early', () =>
        docsThenClose(target),
      ),
    ];
    const seen = await pipelinePatchThenGet(target.port, '127.0.0.5', target.key, 30, 100);
    const stale = seen.filter((quantity, i) => quantity !== 101 + i).length;
    const ms = (n: number): string => (Number.isFinite(n) ? String(Math.round(n)) : 'no answer');
    const lines = [
      '| attack | keyed GETs failed / sent | median ms | worst ms | peak descriptors | descriptors at end | peak RSS MB |',
      '|---|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.attack} | ${r.failed} / ${r.probes} | ${ms(r.medianMs)} | ${ms(r.worstMs)} | ${r.peakDescriptors} | ${r.endDescriptors} | ${r.peakRssMb} |`,
      ),
      '',
      `PATCH then GET pipelined on one connection: ${stale} of 30 GETs answered the value before the PATCH.`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    process.stdout.write(`\n${(await poolAttackLines(target)).join('\n')}\n`);
  } finally {
    await target.stop();
  }
  process.stdout.write(`\n${(await deadReceiverLines()).join('\n')}\n`);
}

await main();
process.stdout.write(`\n${(await holdAttacks()).join('\n')}\n`);
