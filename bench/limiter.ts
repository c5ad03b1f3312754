import type { Cluster, Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { MemoryRateLimiter } from '../src/adapters/memory/memory-rate-limiter.js';
import { createRedisClient, createRedisClusterClient, whenReady } from '../src/adapters/redis/redis-client.js';
import { RedisRateLimiter } from '../src/adapters/redis/redis-rate-limiter.js';
import { systemClock } from '../src/adapters/system/system-clock.js';
import { LIMIT_MAX, rateLimitPolicy } from '../src/domain/plan.js';
import { startRedisCluster } from '../support/redis-cluster.js';
import { count, median, percentiles, ratio, runs, table } from './stats.js';

type Decide = (subject: string) => Promise<unknown>;

export interface LimiterSettings {
  readonly seconds: number;
  readonly rounds: number;
  readonly warmupSeconds: number;
}

const IN_FLIGHT = 50;
// Many API keys, as in service, rather than one hot key.
const SUBJECTS = Array.from({ length: 1_000 }, (_, i) => `key:${i}`);
const UNLIMITED = rateLimitPolicy(LIMIT_MAX, LIMIT_MAX);

interface Measured {
  readonly rate: number;
  /** CPU time, user and system, this process spent a decision: the client's side of it. */
  readonly clientCpuUs: number;
  readonly decisions: number;
  /** From the call to the settled promise, in µs: the median and the 99th percentile of the run. */
  readonly p50Us: number;
  readonly p99Us: number;
}

/** Decisions per second of `decide` with `inFlight` workers, each awaiting its decision before the next. */
async function measure(decide: Decide, inFlight: number, seconds: number): Promise<Measured> {
  const endAt = performance.now() + seconds * 1_000;
  const latencies: number[] = [];
  const worker = async (offset: number): Promise<void> => {
    for (let i = offset; ; i += inFlight) {
      const began = performance.now();
      if (began >= endAt) return;
      await decide(SUBJECTS[i % SUBJECTS.length] as string);
      latencies.push(performance.now() - began);
    }
  };
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, (_, offset) => worker(offset)));
  const used = process.cpuUsage(cpu);
  const done = latencies.length;
  const [p50, p99] = percentiles(latencies, [50, 99]) as [number, number];
  return {
    rate: done / ((performance.now() - started) / 1_000),
    clientCpuUs: (used.user + used.system) / done,
    decisions: done,
    p50Us: p50 * 1_000,
    p99Us: p99 * 1_000,
  };
}

/** One client on each Redis server of the pair's store (one, or each master of a cluster), for its statistics. */
type Admins = readonly Redis[];

/** Sums `read` over every server. */
async function summed(admins: Admins, read: (admin: Redis) => Promise<number>): Promise<number> {
  let total = 0;
  for (const admin of admins) total += await read(admin);
  return total;
}

/** The CPU seconds, user and system, the Redis servers have used since they started (INFO cpu). */
const serverCpuSeconds = (admins: Admins): Promise<number> =>
  summed(admins, async (admin) => {
    const info = await admin.info('cpu');
    const field = (name: string): number => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
    return field('used_cpu_user') + field('used_cpu_sys');
  });

/** Microseconds the servers spent in EVALSHA since the last reset, then resets the statistics. */
const scriptMicros = (admins: Admins): Promise<number> =>
  summed(admins, async (admin) => {
    const stats = await admin.info('commandstats');
    await admin.config('RESETSTAT');
    // A master that ran no script has no line.
    return Number(/^cmdstat_evalsha:calls=\d+,usec=(\d+)/m.exec(stats)?.[1] ?? 0);
  });

interface Side {
  readonly rates: number[];
  readonly p50Us: number[];
  readonly p99Us: number[];
  readonly clientCpuUs: number[];
  /** The Redis server's own time in scripts a decision in each run (commandstats); empty for the in-process pair. */
  readonly micros: number[];
  /** The Redis server's CPU time per decision, networking included (INFO cpu); empty for the in-process pair. */
  readonly serverCpuUs: number[];
}

export interface LimiterRow {
  readonly pair: 'Redis' | 'Redis Cluster' | 'in-process';
  readonly inFlight: number;
  readonly ours: Side;
  readonly theirs: Side;
}

/** Alternates the two sides, after a short warm-up of each, and keeps every run. */
async function compare(
  pair: LimiterRow['pair'],
  ours: Decide,
  theirs: Decide,
  inFlight: number,
  settings: LimiterSettings,
  admin?: Admins,
): Promise<LimiterRow> {
  const side = (): Side => ({ rates: [], p50Us: [], p99Us: [], clientCpuUs: [], micros: [], serverCpuUs: [] });
  const row: LimiterRow = { pair, inFlight, ours: side(), theirs: side() };
  const sides: [Decide, Side][] = [
    [ours, row.ours],
    [theirs, row.theirs],
  ];
  for (const [decide] of sides) await measure(decide, inFlight, settings.warmupSeconds);
  for (let round = 0; round < settings.rounds; round += 1) {
    for (const [decide, s] of sides) {
      if (admin !== undefined) await scriptMicros(admin);
      const serverCpu = admin === undefined ? 0 : await serverCpuSeconds(admin);
      const run = await measure(decide, inFlight, settings.seconds);
      s.rates.push(run.rate);
      s.p50Us.push(run.p50Us);
      s.p99Us.push(run.p99Us);
      s.clientCpuUs.push(run.clientCpuUs);
      if (admin !== undefined) {
        s.serverCpuUs.push((((await serverCpuSeconds(admin)) - serverCpu) * 1e6) / run.decisions);
        s.micros.push((await scriptMicros(admin)) / run.decisions);
      }
    }
  }
  return row;
}

/** Each round's ours / theirs decisions per second. */
export const limiterRatios = (row: LimiterRow): number[] =>
  row.ours.rates.map((rate, i) => rate / (row.theirs.rates[i] as number));

/** Each round's CPU a decision, client and Redis together, theirs over ours; empty for the in-process pair. */
export const limiterCpuRatios = (row: LimiterRow): number[] => {
  const total = (s: Side, i: number): number => (s.clientCpuUs[i] as number) + (s.serverCpuUs[i] as number);
  return row.ours.serverCpuUs.map((_, i) => total(row.theirs, i) / total(row.ours, i));
};

/**
 * Decisions per second of the project's limiters against rate-limiter-flexible's, on the Redis at
 * `redisUrl`, with clients made alike by `createRedisClient`. Both sides admit every request (limits far
 * out of reach), so each decision does its full work: ours checks the ban and two sliding windows and
 * counts in both; RateLimiterRedis counts in one fixed window. Sequential (each decision awaited) and 50
 * in flight; the two sides alternate. For the Redis pair it also reads the server's own time per script
 * call (INFO commandstats), which bounds what one Redis can decide per second whatever the clients.
 * Then the Redis pair again on a Redis Cluster of three masters (on this machine, started for the suite),
 * each side with a `createRedisClusterClient` client, the servers' figures summed over the masters.
 */
export async function runLimiterSuite(
  redisUrl: string,
  settings: LimiterSettings,
  progress: (line: string) => void,
): Promise<LimiterRow[]> {
  // A generous command timeout: a benchmark waits on purpose.
  const [ourClient, theirClient, admin] = [0, 1, 2].map(() =>
    createRedisClient(redisUrl, { commandTimeoutMs: 5_000 }),
  ) as [Redis, Redis, Redis];
  try {
    for (const client of [ourClient, theirClient, admin]) await whenReady(client, 5_000);
    const ourRedis = new RedisRateLimiter(ourClient, systemClock, { keyPrefix: 'bench:' });
    const theirRedis = new RateLimiterRedis({ storeClient: theirClient, points: LIMIT_MAX, duration: 60 });
    const ourMemory = new MemoryRateLimiter(systemClock);
    const theirMemory = new RateLimiterMemory({ points: LIMIT_MAX, duration: 60 });
    const rows: LimiterRow[] = [];
    for (const inFlight of [1, IN_FLIGHT]) {
      const redis = await compare(
        'Redis',
        (s) => ourRedis.admit(s, UNLIMITED),
        (s) => theirRedis.consume(s),
        inFlight,
        settings,
        [admin],
      );
      const memory = await compare(
        'in-process',
        (s) => ourMemory.admit(s, UNLIMITED),
        (s) => theirMemory.consume(s),
        inFlight,
        settings,
      );
      rows.push(redis, memory);
      for (const r of [redis, memory]) {
        progress(`  ${r.pair}, ${r.inFlight} in flight: ours / theirs ${ratio(median(limiterRatios(r)))}`);
      }
    }
    rows.push(...(await clusterRows(settings, progress)));
    return rows;
  } finally {
    for (const client of [ourClient, theirClient, admin]) client.disconnect();
  }
}

/** The Redis pair on a Redis Cluster of three masters, sequential and 50 in flight. */
async function clusterRows(settings: LimiterSettings, progress: (line: string) => void): Promise<LimiterRow[]> {
  const cluster = await startRedisCluster();
  const [ourClient, theirClient] = [0, 1].map(() =>
    createRedisClusterClient(cluster.nodes, { commandTimeoutMs: 5_000 }),
  ) as [Cluster, Cluster];
  const admins = cluster.nodes.map((n) =>
    createRedisClient(`redis://${n.host}:${n.port}`, { commandTimeoutMs: 5_000 }),
  );
  try {
    for (const client of [ourClient, theirClient, ...admins]) await whenReady(client, 10_000);
    const ours = new RedisRateLimiter(ourClient, systemClock, { keyPrefix: 'bench:' });
    const theirs = new RateLimiterRedis({ storeClient: theirClient, points: LIMIT_MAX, duration: 60 });
    const rows: LimiterRow[] = [];
    for (const inFlight of [1, IN_FLIGHT]) {
      const row = await compare(
        'Redis Cluster',
        (s) => ours.admit(s, UNLIMITED),
        (s) => theirs.consume(s),
        inFlight,
        settings,
        admins,
      );
      rows.push(row);
      progress(`  ${row.pair}, ${row.inFlight} in flight: ours / theirs ${ratio(median(limiterRatios(row)))}`);
    }
    return rows;
  } finally {
    for (const client of [ourClient, theirClient, ...admins]) client.disconnect();
    await cluster.stop();
  }
}

const PAIRS: Record<LimiterRow['pair'], string> = {
  Redis: '`RedisRateLimiter` vs `RateLimiterRedis`',
  'Redis Cluster': '`RedisRateLimiter` vs `RateLimiterRedis`, Redis Cluster of 3 masters',
  'in-process': '`MemoryRateLimiter` vs `RateLimiterMemory`',
};

const micros = (values: readonly number[]): string => (values.length === 0 ? '-' : median(values).toFixed(1));

const pair = (row: LimiterRow, pick: (s: Side) => readonly number[]): string =>
  `${micros(pick(row.ours))} / ${micros(pick(row.theirs))}`;

/** The limiter section of bench/README.md. */
export function limiterSection(rows: readonly LimiterRow[], settings: LimiterSettings): string {
  return [
    '## Rate limiter: decisions per second against rate-limiter-flexible',
    '',
    'In the benchmark process, on the same redis-server as the HTTP section, with clients made alike by',
    '`createRedisClient` (no offline queue; command timeout raised to 5 s for the benchmark). Each side admits',
    'every request (limits far out of reach), over 1,000 subjects in turn: ours checks the ban and two sliding',
    "windows and counts in both; rate-limiter-flexible's limiters count in one fixed window. The two sides",
    `alternate, ${settings.rounds} round(s) of ${settings.seconds} s after a ${settings.warmupSeconds} s warm-up of each;`,
    'the ratio is taken within each round, and the median quoted. Pairs of figures are ours / theirs, medians.',
    'p50 and p99 are of the time from a call to its settled promise, over every decision of a run.',
    'The CPU figures vary less than the rates on a busy machine: "client CPU" is what this process spent a',
    'decision (`process.cpuUsage`), "Redis CPU" what redis-server spent a decision, networking included',
    '(`INFO cpu`), and "Redis script" its time inside EVALSHA a decision (`INFO commandstats`, reset around',
    'each run). Both Redis limiters decide in a Lua script: theirs runs SET NX, INCRBY and PTTL, one call a',
    'decision; ours decides the decisions asked for in one turn of the event loop in one call (up to 100),',
    'each by HGET and HSET of its state, with one TIME for all. Redis CPU bounds what one Redis core can',
    'decide a second for all service processes together. The Redis Cluster rows run the Redis pair on three',
    "masters on this machine, with `createRedisClusterClient` clients, the servers' figures summed over the",
    "masters; ours then makes one call per hash slot of a turn's decisions, so distinct subjects rarely share one.",
    '',
    table(
      [
        'limiters',
        'in flight',
        'ours (decisions/s)',
        'theirs (decisions/s)',
        'ours / theirs',
        'ratio in each round',
        'p50 µs',
        'p99 µs',
        'client CPU µs a decision',
        'Redis CPU µs a decision',
        'Redis script µs a decision',
      ],
      rows.map((r) => [
        PAIRS[r.pair],
        r.inFlight === 1 ? '1 (sequential)' : String(r.inFlight),
        count(median(r.ours.rates)),
        count(median(r.theirs.rates)),
        `**${ratio(median(limiterRatios(r)))}**`,
        runs(limiterRatios(r), ratio),
        pair(r, (s) => s.p50Us),
        pair(r, (s) => s.p99Us),
        pair(r, (s) => s.clientCpuUs),
        pair(r, (s) => s.serverCpuUs),
        pair(r, (s) => s.micros),
      ]),
    ),
  ].join('\n');
}
