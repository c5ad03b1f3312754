/**
 * Decisions per second of the project's rate limiters against rate-limiter-flexible's, on one Redis
 * server this script starts on a free port (and stops), with the same ioredis client options.
 *
 * Run: node --import tsx bench/limiter.ts [seconds per run, default 2]
 *
 * Both sides admit every request (limits far out of reach), so each decision does its full work: ours
 * checks the ban and two sliding windows and counts in both; RateLimiterRedis counts in one fixed
 * window. A run is sequential (each decision awaited) or keeps 50 in flight; the limiters alternate
 * A, B, A, B... for 3 rounds, and the table shows medians. For the Redis pair it also shows the server's
 * own time per script call (INFO commandstats), which bounds what one Redis can decide per second
 * whatever the clients, and varies less than a client's rate on a busy machine.
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { MemoryRateLimiter } from '../src/adapters/memory/memory-rate-limiter.js';
import { createRedisClient, whenReady } from '../src/adapters/redis/redis-client.js';
import { RedisRateLimiter } from '../src/adapters/redis/redis-rate-limiter.js';
import { systemClock } from '../src/adapters/system/system-clock.js';
import { LIMIT_MAX, rateLimitPolicy } from '../src/domain/plan.js';
import { startRedisServer } from '../tests/support/redis-server.js';

type Decide = (subject: string) => Promise<unknown>;

const SECONDS = Number(process.argv[2] ?? 2);
const ROUNDS = 3;
const IN_FLIGHT = 50;
// Many API keys, as in service, rather than one hot key.
const SUBJECTS = Array.from({ length: 1_000 }, (_, i) => `key:${i}`);
const UNLIMITED = rateLimitPolicy(LIMIT_MAX, LIMIT_MAX);

/** Decisions per second of `decide` with `inFlight` workers, each awaiting its decision before the next. */
async function measure(decide: Decide, inFlight: number, seconds: number): Promise<number> {
  const endAt = performance.now() + seconds * 1_000;
  let done = 0;
  const worker = async (offset: number): Promise<void> => {
    for (let i = offset; performance.now() < endAt; i += inFlight) {
      await decide(SUBJECTS[i % SUBJECTS.length] as string);
      done += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, (_, offset) => worker(offset)));
  return done / ((performance.now() - started) / 1_000);
}

/** Microseconds the server spent per EVALSHA since the last reset, then resets the statistics. */
async function scriptMicros(admin: Redis): Promise<number> {
  const stats = await admin.info('commandstats');
  await admin.config('RESETSTAT');
  return Number(/^cmdstat_evalsha:.*usec_per_call=([\d.]+)/m.exec(stats)?.[1] ?? Number.NaN);
}

const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

interface Side {
  readonly decide: Decide;
  readonly rates: number[];
  readonly micros: number[];
}

interface Row {
  readonly pair: string;
  readonly mode: string;
  readonly ours: Side;
  readonly theirs: Side;
}

/** Alternates the two sides, after a short warm-up of each, and keeps every run. */
async function compare(pair: string, ours: Decide, theirs: Decide, inFlight: number, admin?: Redis): Promise<Row> {
  const side = (decide: Decide): Side => ({ decide, rates: [], micros: [] });
  const row: Row = {
    pair,
    mode: inFlight === 1 ? 'sequential' : `${inFlight} in flight`,
    ours: side(ours),
    theirs: side(theirs),
  };
  for (const s of [row.ours, row.theirs]) await measure(s.decide, inFlight, 0.5);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const s of [row.ours, row.theirs]) {
      if (admin !== undefined) await scriptMicros(admin);
      s.rates.push(await measure(s.decide, inFlight, SECONDS));
      if (admin !== undefined) s.micros.push(await scriptMicros(admin));
    }
  }
  return row;
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const micros = (s: Side): string => (s.micros.length === 0 ? '-' : median(s.micros).toFixed(1));

async function main(): Promise<void> {
  const server = await startRedisServer();
  // The same options for every client; a generous command timeout, since a benchmark waits on purpose.
  const [ourClient, theirClient, admin] = [0, 1, 2].map(() =>
    createRedisClient(server.url, { commandTimeoutMs: 5_000 }),
  ) as [Redis, Redis, Redis];
  try {
    for (const client of [ourClient, theirClient, admin]) await whenReady(client, 5_000);
    const ourRedis = new RedisRateLimiter(ourClient, { keyPrefix: 'bench:' });
    const theirRedis = new RateLimiterRedis({ storeClient: theirClient, points: LIMIT_MAX, duration: 60 });
    const ourMemory = new MemoryRateLimiter(systemClock);
    const theirMemory = new RateLimiterMemory({ points: LIMIT_MAX, duration: 60 });
    const rows: Row[] = [];
    for (const inFlight of [1, IN_FLIGHT]) {
      rows.push(
        await compare(
          'RedisRateLimiter vs RateLimiterRedis',
          (s) => ourRedis.admit(s, UNLIMITED),
          (s) => theirRedis.consume(s),
          inFlight,
          admin,
        ),
        await compare(
          'MemoryRateLimiter vs RateLimiterMemory',
          (s) => ourMemory.admit(s, UNLIMITED),
          (s) => theirMemory.consume(s),
          inFlight,
        ),
      );
    }

    const redisVersion = spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).stdout.trim();
    console.log(`nproc ${availableParallelism()}, node ${process.version}, ${redisVersion}`);
    console.log(`${SECONDS} s a run, ${ROUNDS} rounds alternating, medians; runs listed ours | theirs\n`);
    console.log(
      '| limiters | mode | ours (decisions/s) | theirs (decisions/s) | ours / theirs | server µs per call, ours / theirs | runs (decisions/s) |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const r of rows) {
      const runs = `${r.ours.rates.map(fmt).join(', ')} \\| ${r.theirs.rates.map(fmt).join(', ')}`;
      const ratio = (median(r.ours.rates) / median(r.theirs.rates)).toFixed(2);
      const server = `${micros(r.ours)} / ${micros(r.theirs)}`;
      console.log(
        `| ${r.pair} | ${r.mode} | ${fmt(median(r.ours.rates))} | ${fmt(median(r.theirs.rates))} | ${ratio} | ${server} | ${runs} |`,
      );
    }
  } finally {
    for (const client of [ourClient, theirClient, admin]) client.disconnect();
    await server.stop();
  }
}

await main();
