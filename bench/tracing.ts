import { once } from 'node:events';
import { copyFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { assertNoWarnings, fetchList, LIST_PETS, LIST_REQUESTS, type LoadSettings } from './http.js';
import { type LoadRun, runLoad } from './load.js';
import { startService } from './petstore.js';
import type { ServerProcess } from './server-process.js';
import { count, median, ratio, runs, table } from './stats.js';

/** One round: the service untraced and traced, under the same GET load, run back to back. */
export interface TracingRound {
  readonly off: LoadRun;
  readonly on: LoadRun;
}

export interface TracingResult {
  readonly rounds: readonly TracingRound[];
  /** OTLP export requests and their bytes the collector received over the whole comparison. */
  readonly exports: number;
  readonly exportedBytes: number;
}

const rateRatio = (r: TracingRound): number => r.on.rps / r.off.rps;

const cpuRatio = (r: TracingRound): number | undefined =>
  r.on.cpuUsPerRequest === undefined || r.off.cpuUsPerRequest === undefined
    ? undefined
    : r.off.cpuUsPerRequest / r.on.cpuUsPerRequest;

/** A collector that reads every OTLP export and drops it, answering 200: the traced side pays for exporting only. */
async function startDiscardingCollector() {
  const received = { exports: 0, bytes: 0 };
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => {
      received.bytes += chunk.length;
    });
    request.on('end', () => {
      received.exports += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the collector has no TCP port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    received,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/**
 * GET /v1/inventory of `untraced` against a copy of it with tracing on (OTEL_EXPORTER_OTLP_ENDPOINT, the
 * SDK's default batching, a local collector that drops what it gets), each round back to back, the order
 * swapped every round, the ratio taken within it. `db` is the untraced service's database, copied.
 */
export async function runTracingComparison(
  dir: string,
  untraced: ServerProcess,
  db: string,
  key: string,
  settings: LoadSettings,
  progress: (line: string) => void,
): Promise<TracingResult> {
  const collector = await startDiscardingCollector();
  const log = join(dir, 'tracing-on.log');
  let traced: ServerProcess | undefined;
  try {
    await copyFile(db, join(dir, 'tracing-on.db'));
    traced = await startService(
      'service (tracing on)',
      { db: join(dir, 'tracing-on.db'), otlpEndpoint: collector.url },
      log,
    );
    if ((await fetchList(traced, key)) !== (await fetchList(untraced, key)))
      throw new Error('the traced service listed different bytes');
    const headers = { authorization: `Bearer ${key}` };
    const load = (server: ServerProcess, seconds: number) => runLoad(server, LIST_REQUESTS, headers, seconds);
    await load(traced, settings.warmupSeconds);
    const rounds: TracingRound[] = [];
    for (let round = 1; round <= settings.rounds; round += 1) {
      const first = round % 2 === 1 ? untraced : traced;
      const second = first === untraced ? traced : untraced;
      const a = await load(first, settings.seconds);
      const b = await load(second, settings.seconds);
      const measured = first === untraced ? { off: a, on: b } : { off: b, on: a };
      rounds.push(measured);
      progress(
        `  round ${round}: tracing on ${count(measured.on.rps)} req/s, off ${count(measured.off.rps)} req/s, ` +
          `ratio ${ratio(rateRatio(measured))}`,
      );
    }
    await assertNoWarnings(traced, log);
    if (collector.received.exports === 0) throw new Error('the traced service exported no spans');
    return { rounds, exports: collector.received.exports, exportedBytes: collector.received.bytes };
  } finally {
    await traced?.stop();
    await collector.close();
  }
}

const percent = (n: number): string => `${(n * 100).toFixed(1)} %`;

/** The tracing part of the metrics section of bench/README.md. */
export function tracingSection(result: TracingResult, settings: LoadSettings): string {
  const { rounds } = result;
  const cpu = rounds.map(cpuRatio).filter((r): r is number => r !== undefined);
  const side = (pick: (r: TracingRound) => number): string => count(median(rounds.map(pick)));
  const cpuSide = (pick: (r: TracingRound) => number | undefined): string => {
    const values = rounds.map(pick).filter((v): v is number => v !== undefined);
    return values.length === 0 ? 'n/a' : median(values).toFixed(0);
  };
  return [
    '### Traces: what they cost GET throughput when on',
    '',
    `- GET /v1/inventory (${LIST_PETS} pets, in-process limiter, metrics on) of the service with tracing off and with`,
    '  `OTEL_EXPORTER_OTLP_ENDPOINT` set (run as `npm start` runs it, `node --import ./dist/tracing.js`): a server',
    "  span a request named by its route, a span a store call and a limiter decision, exported by the SDK's",
    '  default batch processor as OTLP/HTTP JSON to a collector in the benchmark process that drops them.',
    `- ${settings.rounds} round(s) of ${settings.seconds} s a side, after a ${settings.warmupSeconds} s warm-up of the traced side;`,
    '  each round runs both back to back, the order swapped every round. Off, tracing costs one branch at',
    `  start. The collector received ${count(result.exports)} exports, ${count(result.exportedBytes / 1e6)} MB.`,
    '',
    table(
      [
        'req/s on / off',
        'ratio on / off',
        'ratio in each round',
        'server CPU µs a request (on / off)',
        'CPU ratio (off / on)',
        'cost (1 - ratio)',
      ],
      [
        [
          `${side((r) => r.on.rps)} / ${side((r) => r.off.rps)}`,
          ratio(median(rounds.map(rateRatio))),
          runs(rounds.map(rateRatio), ratio),
          `${cpuSide((r) => r.on.cpuUsPerRequest)} / ${cpuSide((r) => r.off.cpuUsPerRequest)}`,
          cpu.length === 0 ? 'n/a' : ratio(median(cpu)),
          `**${percent(1 - median(rounds.map(rateRatio)))}**`,
        ],
      ],
    ),
  ].join('\n');
}
