/**
 * What a request's log line costs the process: pino (as the server wrote the request log before)
 * against the RequestLineWriter (as it writes it now), both to an asynchronous pino destination on a
 * file in a temp folder, as `npm start` writes its log. The lines go `perTurn` to a turn of the event
 * loop: 1, as when requests come one at a time, and 25, as when the writer thread answers a group
 * commit's PATCHes together. Each figure is the process's CPU (every thread: the destination writes
 * in libuv's pool), user and system, a line, less the same loop writing no line; medians of 5
 * alternating rounds. Prints only. Usage: node --import tsx bench/request-log.ts [lines=50000]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuUsage } from 'node:process';
import { pino } from 'pino';
import type { AccessLogger, RequestLogFields } from '../src/adapters/http/access-log.js';
import { RequestLineWriter } from '../src/adapters/http/request-line-writer.js';
import { median, table } from './stats.js';

const lines = Number(process.argv[2] ?? '50000');
const ROUNDS = 5;
const FIELDS: readonly RequestLogFields[] = Array.from({ length: 1000 }, (_, i) => ({
  requestId: crypto.randomUUID(),
  method: 'PATCH',
  route: '/v1/inventory/:petId',
  status: 200,
  ms: (i % 300) / 100,
  keyId: 'key_u7BaMwxJMCnA',
}));

type Destination = ReturnType<typeof pino.destination>;
const WRITERS: Readonly<Record<string, (destination: Destination) => AccessLogger & { flush?(): void }>> = {
  none: () => ({ isLevelEnabled: () => true, info: () => undefined, debug: () => undefined }),
  pino: (destination) => pino({ level: 'info' }, destination),
  RequestLineWriter: (destination) => new RequestLineWriter(destination, { level: 'info', maxDelayMs: 100 }),
};

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** CPU µs a line of `name`, `perTurn` lines a turn, into a new file of `dir`. */
async function round(dir: string, name: string, perTurn: number): Promise<number> {
  const destination = pino.destination({ dest: join(dir, `${name}.log`), sync: false, mkdir: true });
  await new Promise((resolve) => destination.once('ready', resolve));
  const writer = WRITERS[name]?.(destination);
  if (writer === undefined) throw new Error(name);
  const before = cpuUsage();
  for (let i = 0; i < lines; i += 1) {
    writer.info(FIELDS[i % FIELDS.length] as RequestLogFields, 'request');
    if ((i + 1) % perTurn === 0) await nextTurn();
  }
  writer.flush?.();
  await new Promise((resolve) => {
    destination.once('close', resolve);
    destination.end();
  });
  const used = cpuUsage(before);
  return (used.user + used.system) / lines;
}

const dir = await mkdtemp(join(tmpdir(), 'petstore-request-log-'));
try {
  const rows: string[][] = [];
  for (const perTurn of [1, 25]) {
    const runs: Record<string, number[]> = { none: [], pino: [], RequestLineWriter: [] };
    for (let r = 0; r < ROUNDS; r += 1) {
      for (const name of Object.keys(runs)) runs[name]?.push(await round(dir, name, perTurn));
    }
    const none = median(runs.none ?? []);
    const pinoUs = median(runs.pino ?? []) - none;
    const writerUs = median(runs.RequestLineWriter ?? []) - none;
    rows.push([String(perTurn), pinoUs.toFixed(2), writerUs.toFixed(2), (pinoUs / writerUs).toFixed(1)]);
  }
  process.stdout.write(
    `CPU µs a request log line (${lines} lines a round, medians of ${ROUNDS}):\n` +
      `${table(['lines a turn', 'pino', 'RequestLineWriter', 'pino / writer'], rows)}\n`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
