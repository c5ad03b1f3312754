import { createReadStream } from 'node:fs';
import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startRedisCluster } from '../support/redis-cluster.js';
import { CONNECTIONS, type LoadRequest, type LoadRun, runLoad } from './load.js';
import {
  benchItemsJson,
  prepareEarlierPetstore,
  preparePetstore,
  START_FLAGS,
  startBaseline,
  startPeer,
  startService,
} from './petstore.js';
import { type ServerProcess, startTogether, stopAll } from './server-process.js';
import { count, median, ms, ratio, runs, table } from './stats.js';

export const LIST_PETS = 100;

/** The requests of a GET load: the list, again and again. */
export const LIST_REQUESTS: readonly LoadRequest[] = [{ method: 'GET', path: '/v1/inventory' }];

/** The requests of a PATCH load: `spread` pets picked evenly from 1..pets, two quantities each. */
export function patchRequests(pets: number, spread: number): LoadRequest[] {
  return Array.from({ length: spread * 2 }, (_, i) => {
    const pet = 1 + Math.floor(((i % spread) * pets) / spread);
    return { method: 'PATCH', path: `/v1/inventory/${pet}`, body: `{"quantity":${1 + ((pet + i) % 50)}}` };
  });
}

/**
 * The requests of an adjustment load: for each of `spread` pets picked evenly from 1..pets, +2 then -1.
 * autocannon walks the list on each connection in order, so a connection's -1 follows its own +2 and no
 * stock ever falls below 0 (every answer must be a 2xx): each pet's stock only grows.
 */
export function adjustmentRequests(pets: number, spread: number): LoadRequest[] {
  return Array.from({ length: spread * 2 }, (_, i) => {
    const pet = 1 + Math.floor((Math.floor(i / 2) * pets) / spread);
    return { method: 'POST', path: `/v1/inventory/${pet}/adjustments`, body: `{"delta":${i % 2 === 0 ? 2 : -1}}` };
  });
}

/** The most entries a batch takes: the batch load sends batches of that many. */
export const BATCH_ENTRIES = 100;

/** The requests of a batch load: two batches, each setting every one of pets 1..100, to two quantities. */
export function batchRequests(): LoadRequest[] {
  return [7, 8].map((q) => ({
    method: 'POST',
    path: '/v1/inventory/batch',
    body: `{"changes":[${Array.from({ length: BATCH_ENTRIES }, (_, i) => `{"petId":${i + 1},"quantity":${q + (i % 3)}}`).join(',')}]}`,
  }));
}

/** One round of a pair: the baseline, then the service, under the same load. */
export interface PairRound {
  readonly baseline: LoadRun;
  readonly service: LoadRun;
  /**
   * The Fastify peer (bench/fastify-peer.ts), right after the service under the same load (in-process
   * GET and PATCH); absent from the records of runs before it existed.
   */
  readonly peer?: LoadRun;
  /** With `--against`: the earlier build's service, right after, under the same load (in-process limiter only). */
  readonly earlier?: LoadRun;
}

export interface Scenario {
  readonly request:
    | 'GET /v1/inventory'
    | 'PATCH /v1/inventory/{petId}'
    | 'POST /v1/inventory/{petId}/adjustments'
    | 'POST /v1/inventory/batch (100 entries)';
  readonly limiter: 'in-process' | 'Redis' | 'Redis Cluster';
  /** The least ratio to the baseline the issue asks; absent where it asks none. */
  readonly target?: number;
  /** The least ratio to the Fastify peer the issue asks, where the peer is measured. */
  readonly peerTarget?: number;
  readonly rounds: PairRound[];
}

export const roundRatio = (r: PairRound): number => r.service.rps / r.baseline.rps;

/** The median of the rounds' own ratios: each round's service against the baseline measured beside it. */
export const medianRatio = (s: { readonly rounds: readonly PairRound[] }): number => median(s.rounds.map(roundRatio));

/** Issue 42, goal 4: the service's GET and PATCH at least this many times the Fastify peer's rate. */
export const PEER_TARGET = 1.5;

/** The rounds that measured the Fastify peer, each as the service's run and the peer's. */
const peerRounds = (s: Scenario): { readonly service: LoadRun; readonly peer: LoadRun }[] =>
  s.rounds.flatMap((r) => (r.peer === undefined ? [] : [{ service: r.service, peer: r.peer }]));

/** Each round's service / peer ratio of req/s; empty where the peer was not measured. */
export const peerRatios = (s: Scenario): number[] => peerRounds(s).map((r) => r.service.rps / r.peer.rps);

/** Each round's peer CPU a request over the service's: above 1, a request costs the service less. */
export const peerCpuRatios = (s: Scenario): number[] =>
  peerRounds(s).flatMap(({ service, peer }) =>
    service.cpuUsPerRequest === undefined || peer.cpuUsPerRequest === undefined
      ? []
      : [peer.cpuUsPerRequest / service.cpuUsPerRequest],
  );

/** The scenarios that measured the Fastify peer. */
export const peerScenarios = (scenarios: readonly Scenario[]): Scenario[] =>
  scenarios.filter((s) => peerRatios(s).length > 0);

export interface LoadSettings {
  readonly seconds: number;
  readonly rounds: number;
  readonly warmupSeconds: number;
}

/** GETs the list with the key and returns its text, or throws on a status other than 200. */
export async function fetchList(server: ServerProcess, key: string): Promise<string> {
  const response = await fetch(`${server.url}/inventory`, { headers: { authorization: `Bearer ${key}` } });
  const text = await response.text();
  if (response.status !== 200)
    throw new Error(`${server.name}: GET /v1/inventory answered ${response.status}: ${text}`);
  return text;
}

/** Throws if the server logged a warning or worse, e.g. a Redis limiter that fell back to the in-process one. */
export async function assertNoWarnings(server: ServerProcess, logFile: string): Promise<void> {
  const lines = createInterface({ input: createReadStream(logFile), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    const level = /^\{"level":(\d+)/.exec(line)?.[1];
    if (level !== undefined && Number(level) >= 40) throw new Error(`${server.name} logged a warning: ${line}`);
  }
}

interface Pair {
  readonly scenario: Scenario;
  readonly service: ServerProcess;
  readonly requests: readonly LoadRequest[];
  /**
   * The earlier build's service of `--against`, with its own key, measured after `service` in each
   * round (and after the peer, where there is one).
   */
  readonly earlier?: { readonly server: ServerProcess; readonly key: string };
  /** The Fastify peer, with the same key, measured right after `service` in each round. */
  readonly peer?: ServerProcess;
}

/**
 * Warms each server up with its load, then runs the rounds: in each, every pair runs its baseline and
 * then its service, so that a pair's runs lie seconds apart and its rounds spread over the whole suite.
 */
export async function runPairs(
  pairs: readonly Pair[],
  baseline: ServerProcess,
  key: string,
  settings: LoadSettings,
  progress: (line: string) => void,
): Promise<void> {
  const headers = { authorization: `Bearer ${key}` };
  const earlierHeaders = (earlier: NonNullable<Pair['earlier']>) => ({ authorization: `Bearer ${earlier.key}` });
  for (const pair of pairs) {
    await runLoad(baseline, pair.requests, headers, settings.warmupSeconds);
    await runLoad(pair.service, pair.requests, headers, settings.warmupSeconds);
    if (pair.peer !== undefined) await runLoad(pair.peer, pair.requests, headers, settings.warmupSeconds);
    if (pair.earlier !== undefined)
      await runLoad(pair.earlier.server, pair.requests, earlierHeaders(pair.earlier), settings.warmupSeconds);
  }
  for (let round = 1; round <= settings.rounds; round += 1) {
    for (const { scenario, service, requests, earlier, peer } of pairs) {
      const base = await runLoad(baseline, requests, headers, settings.seconds);
      const ours = await runLoad(service, requests, headers, settings.seconds);
      const fastify = peer === undefined ? undefined : await runLoad(peer, requests, headers, settings.seconds);
      const then =
        earlier === undefined
          ? undefined
          : await runLoad(earlier.server, requests, earlierHeaders(earlier), settings.seconds);
      scenario.rounds.push({
        baseline: base,
        service: ours,
        ...(fastify === undefined ? {} : { peer: fastify }),
        ...(then === undefined ? {} : { earlier: then }),
      });
      const cpu = (run: LoadRun): string =>
        run.cpuUsPerRequest === undefined ? 'n/a' : run.cpuUsPerRequest.toFixed(0);
      progress(
        `  round ${round}: ${scenario.request}, ${scenario.limiter} limiter: ${count(ours.rps)} req/s, ` +
          `baseline ${count(base.rps)} req/s, ratio ${ratio(ours.rps / base.rps)}` +
          (fastify === undefined
            ? ''
            : `; Fastify peer ${count(fastify.rps)} req/s, service / peer ${ratio(ours.rps / fastify.rps)}, ` +
              `server CPU µs a request ${cpu(ours)} / ${cpu(fastify)}`) +
          (then === undefined
            ? ''
            : `; earlier build ${count(then.rps)} req/s, now / earlier ${ratio(ours.rps / then.rps)}`),
      );
    }
  }
}

/**
 * GET /v1/inventory (100 pets), PATCH /v1/inventory/{petId}, adjustments and 100-entry batches of the
 * service, with the in-process limiter, the Redis limiter, and the Redis limiter on a Redis Cluster of
 * three masters started for the suite, each against the bare Koa baseline, under autocannon.
 */
export async function runHttpSuite(
  dir: string,
  redisUrl: string,
  settings: LoadSettings,
  against: string | undefined,
  progress: (line: string) => void,
): Promise<Scenario[]> {
  const logs = {
    memory: join(dir, 'service-in-process.log'),
    redis: join(dir, 'service-redis.log'),
    cluster: join(dir, 'service-redis-cluster.log'),
    earlier: join(dir, 'service-earlier.log'),
    peer: join(dir, 'fastify-peer.log'),
    peerAccess: join(dir, 'fastify-peer-access.log'),
  };
  const servers: ServerProcess[] = [];
  const redisCluster = await startRedisCluster();
  try {
    // One database, copied, so that both services hold the same pets and the same key.
    const key = await preparePetstore(join(dir, 'http-in-process.db'), LIST_PETS);
    await copyFile(join(dir, 'http-in-process.db'), join(dir, 'http-redis.db'));
    await copyFile(join(dir, 'http-in-process.db'), join(dir, 'http-redis-cluster.db'));
    // The Fastify peer's items: the pets the service holds, as its list answers them (checked below).
    const peerItems = join(dir, 'fastify-peer-items.json');
    await writeFile(peerItems, benchItemsJson(LIST_PETS));
    // This build's in-process service, the Fastify peer and, with --against, the earlier build's service
    // (on a database its own code prepared) start together, first (see startTogether).
    const earlierDb = join(dir, 'http-earlier.db');
    const earlierKey = against === undefined ? undefined : prepareEarlierPetstore(against, earlierDb, LIST_PETS);
    const [memory, peer, earlierServer] = await startTogether(
      servers,
      startService('service (in-process limiter)', { db: join(dir, 'http-in-process.db') }, logs.memory),
      startPeer(
        'Fastify peer',
        { items: peerItems, db: join(dir, 'fastify-peer.db'), accessLog: logs.peerAccess },
        key,
        logs.peer,
      ),
      against === undefined
        ? undefined
        : startService(`service of ${against}`, { db: earlierDb, dist: against }, logs.earlier),
    );
    const redisDb = join(dir, 'http-redis.db');
    const redis = await startService('service (Redis limiter)', { db: redisDb, redisUrl }, logs.redis);
    servers.push(redis);
    const clusterDb = join(dir, 'http-redis-cluster.db');
    const nodes = redisCluster.nodesSetting;
    const cluster = await startService(
      'service (Redis Cluster limiter)',
      { db: clusterDb, redisClusterNodes: nodes },
      logs.cluster,
    );
    servers.push(cluster);
    const body = await fetchList(memory, key);
    for (const other of [redis, cluster]) {
      if ((await fetchList(other, key)) !== body) throw new Error('the services listed different bytes');
    }
    const bodyFile = join(dir, 'inventory-100.json');
    await writeFile(bodyFile, body);
    const baseline = await startBaseline('bare Koa baseline', bodyFile, join(dir, 'baseline.log'));
    servers.push(baseline);
    if ((await fetchList(baseline, key)) !== body)
      throw new Error('the baseline answered other bytes than the service');
    if ((await fetchList(peer, key)) !== body) throw new Error('the Fastify peer listed other bytes than the service');

    const make = (
      request: Scenario['request'],
      limiter: Scenario['limiter'],
      target?: number,
      peerTarget?: number,
    ): Scenario => ({
      request,
      limiter,
      ...(target === undefined ? {} : { target }),
      ...(peerTarget === undefined ? {} : { peerTarget }),
      rounds: [],
    });
    // With --against, the earlier build's service joins the in-process pairs: the same load right after
    // this build's, in each round.
    const earlier: Pair['earlier'] =
      earlierServer === undefined || earlierKey === undefined ? undefined : { server: earlierServer, key: earlierKey };
    const inProcess = earlier === undefined ? {} : { earlier };
    const patches = patchRequests(LIST_PETS, LIST_PETS);
    const adjustments = adjustmentRequests(LIST_PETS, LIST_PETS);
    const batches = batchRequests();
    const pairs: Pair[] = [
      {
        scenario: make('GET /v1/inventory', 'in-process', 0.8, PEER_TARGET),
        service: memory,
        requests: LIST_REQUESTS,
        peer,
        ...inProcess,
      },
      { scenario: make('GET /v1/inventory', 'Redis', 0.6), service: redis, requests: LIST_REQUESTS },
      {
        scenario: make('PATCH /v1/inventory/{petId}', 'in-process', 0.7, PEER_TARGET),
        service: memory,
        requests: patches,
        peer,
        ...inProcess,
      },
      { scenario: make('PATCH /v1/inventory/{petId}', 'Redis', 0.6), service: redis, requests: patches },
      // Held to the one-server target: a cluster is there for capacity, not to cost more a request.
      { scenario: make('GET /v1/inventory', 'Redis Cluster', 0.6), service: cluster, requests: LIST_REQUESTS },
      { scenario: make('PATCH /v1/inventory/{petId}', 'Redis Cluster', 0.6), service: cluster, requests: patches },
      {
        scenario: make('POST /v1/inventory/{petId}/adjustments', 'in-process'),
        service: memory,
        requests: adjustments,
        ...inProcess,
      },
      { scenario: make('POST /v1/inventory/{petId}/adjustments', 'Redis'), service: redis, requests: adjustments },
      {
        scenario: make('POST /v1/inventory/batch (100 entries)', 'in-process'),
        service: memory,
        requests: batches,
        ...inProcess,
      },
      { scenario: make('POST /v1/inventory/batch (100 entries)', 'Redis'), service: redis, requests: batches },
    ];
    await runPairs(pairs, baseline, key, settings, progress);
    await assertNoWarnings(memory, logs.memory);
    await assertNoWarnings(redis, logs.redis);
    await assertNoWarnings(cluster, logs.cluster);
    await assertNoWarnings(peer, logs.peerAccess);
    return pairs.map((p) => p.scenario);
  } finally {
    await stopAll(servers);
    await redisCluster.stop();
  }
}

/** One side's median of the rounds of a figure, formatted; n/a where it could not be read. */
export function sideMedian(
  s: Scenario,
  which: 'service' | 'baseline',
  pick: (run: LoadRun) => number | undefined,
  format: (n: number) => string,
): string {
  const values = s.rounds.map((r) => pick(r[which])).filter((v): v is number => v !== undefined);
  return values.length === 0 ? 'n/a' : format(median(values));
}

/** A figure of both sides, service first: `12.5 / 3.0`; n/a where it could not be read. */
export function both(s: Scenario, pick: (run: LoadRun) => number | undefined, format: (n: number) => string): string {
  return `${sideMedian(s, 'service', pick, format)} / ${sideMedian(s, 'baseline', pick, format)}`;
}

/** Beyond this many times the baseline's p99, the service's p99 is one to explain (bench/notes.md). */
export const P99_OVER_BASELINE = 3;

/** The service's p99 over the baseline's, medians of the rounds. */
export const p99Ratio = (s: Scenario): number =>
  median(s.rounds.map((r) => r.service.p99Ms)) / median(s.rounds.map((r) => r.baseline.p99Ms));

/** Each round's baseline CPU a request over the service's: how much more work the service does, whatever the load. */
export const cpuRatios = (s: Scenario): number[] =>
  s.rounds.flatMap((r) =>
    r.service.cpuUsPerRequest === undefined || r.baseline.cpuUsPerRequest === undefined
      ? []
      : [r.baseline.cpuUsPerRequest / r.service.cpuUsPerRequest],
  );

/** The table of scenarios: medians of the rounds, and each round's own ratio to its baseline. */
export function scenarioTable(scenarios: readonly Scenario[]): string {
  const rows = scenarios.map((s) => {
    const cpu = cpuRatios(s);
    return [
      s.request,
      s.limiter,
      both(s, (r) => r.rps, count),
      `**${ratio(medianRatio(s))}**`,
      s.target === undefined ? 'none' : `>= ${ratio(s.target)}`,
      runs(s.rounds.map(roundRatio), ratio),
      both(s, (r) => r.p50Ms, ms),
      both(s, (r) => r.p99Ms, ms),
      p99Ratio(s) > P99_OVER_BASELINE ? `**${ratio(p99Ratio(s))}**` : ratio(p99Ratio(s)),
      both(
        s,
        (r) => r.cpuUsPerRequest,
        (n) => n.toFixed(0),
      ),
      cpu.length === 0 ? 'n/a' : ratio(median(cpu)),
    ];
  });
  return table(
    [
      'request',
      'limiter',
      'req/s (service / baseline)',
      'ratio',
      'target',
      'ratio in each round',
      'p50 ms',
      'p99 ms',
      'p99 / baseline p99',
      'server CPU µs a request',
      'CPU ratio',
    ],
    rows,
  );
}

/** The HTTP section of bench/README.md. */
export function httpSection(scenarios: readonly Scenario[], settings: LoadSettings): string {
  return [
    '## HTTP: the service against a bare Koa app',
    '',
    `- Load: autocannon in the benchmark process, ${CONNECTIONS} connections to 127.0.0.1, ${settings.seconds} s a run,`,
    `  after a ${settings.warmupSeconds} s warm-up of each server. ${settings.rounds} round(s); in each, every pair runs`,
    '  baseline then service, the ratio is taken within the round, and the median of the rounds is quoted.',
    `- Service: \`node ${[...START_FLAGS, ''].join(' ')}--import dist/tracing.js dist/main.js serve\` (as npm start runs it, tracing off),`,
    `  production, synchronous FULL, log level info (a line a request, to a file), ${LIST_PETS} pets, an enterprise`,
    '  key with limits out of reach (the limiter admits every request and still does all of its work). "Redis',
    '  Cluster": the Redis limiter on three masters (`REDIS_CLUSTER_NODES`) on this machine. With Redis, the',
    '  command timeout is raised from 100 ms to 5 s: in trial runs a stall of this busy machine handed',
    '  decisions to the in-process fallback. A server that logs any',
    '  warning (such as that fallback) fails the run, as does any answer other than 2xx, error or timeout.',
    '- Baseline (`bench/baseline-server.ts`): a bare Koa + @koa/router app. Its GET sends the bytes the service',
    '  listed (checked equal); its PATCH reads the body with JSON.parse and answers the item in the',
    "  service's shape. No key check, limiter, store or log.",
    `- PATCH spreads over the ${LIST_PETS} pets, two quantities each; adjustments over the same pets, +2 then -1`,
    `  each; a batch sets all ${BATCH_ENTRIES} pets at once (two bodies). The baseline parses the same bodies and`,
    '  answers the same shapes.',
    '- Pairs of figures are service / baseline, medians of the rounds. "Server CPU µs a request" is the CPU',
    '  time (user and system, /proc/<pid>/stat) the server process used in its run over the requests it',
    '  answered; "CPU ratio" is the baseline\'s over the service\'s, within each round. Unlike req/s it does',
    '  not shrink when other work takes the CPUs: it is the steadier measure of what a request costs.',
    `- p50 and p99 are autocannon's latency percentiles of each run (1 ms resolution). A p99 over`,
    `  ${P99_OVER_BASELINE} times the baseline's is in bold; the latency section and the notes say why.`,
    '',
    scenarioTable(scenarios),
    ...peerLines(scenarios),
    ...againstLines(scenarios),
  ].join('\n');
}

/** A figure of the service and the peer over the rounds that measured both, medians: `12.5 / 3.0`. */
function servicePeer(s: Scenario, pick: (run: LoadRun) => number | undefined, format: (n: number) => string): string {
  const side = (which: 'service' | 'peer'): string => {
    const values = peerRounds(s)
      .map((r) => pick(r[which]))
      .filter((v): v is number => v !== undefined);
    return values.length === 0 ? 'n/a' : format(median(values));
  };
  return `${side('service')} / ${side('peer')}`;
}

/**
 * The service against the Fastify peer (issue 42, goal 4), where the peer was measured: each round's
 * ratio taken within the round, the peer right after the service; nothing for older records.
 */
function peerLines(scenarios: readonly Scenario[]): string[] {
  const compared = peerScenarios(scenarios);
  if (compared.length === 0) return [];
  const rows = compared.map((s) => {
    const cpu = peerCpuRatios(s);
    return [
      s.request,
      s.limiter,
      servicePeer(s, (r) => r.rps, count),
      `**${ratio(median(peerRatios(s)))}**`,
      `>= ${ratio(s.peerTarget ?? PEER_TARGET)}`,
      runs(peerRatios(s), ratio),
      servicePeer(s, (r) => r.p50Ms, ms),
      servicePeer(s, (r) => r.p99Ms, ms),
      servicePeer(
        s,
        (r) => r.cpuUsPerRequest,
        (n) => n.toFixed(0),
      ),
      cpu.length === 0 ? 'n/a' : ratio(median(cpu)),
    ];
  });
  return [
    '',
    'Against the Fastify peer (`bench/fastify-peer.ts`, docs/decisions.md "Performance 3: a Fastify peer"):',
    'the same two routes on Fastify 5 as a team would write them, in one process, with the same node flags,',
    "the same pets and key, its own SQLite file (WAL, synchronous FULL): the key's SHA-256 looked up (a",
    'Map in front of the table), a per-key minute and day limit counted in process with the X-RateLimit',
    "headers, a line a request through Fastify's pino logger to a file, GET read from SQLite on each request",
    "and serialized by its response schema with a weak ETag (its bytes checked equal to the service's),",
    'PATCH checked by JSON schema and written by one UPDATE in a transaction on the event loop. It keeps no',
    'stock history, idempotency outcomes or reservations and groups no commits. Measured right after the',
    'service in each round, under the same load; "CPU ratio" is the peer\'s server CPU a request over the',
    "service's (above 1: a request costs the service less).",
    '',
    table(
      [
        'request',
        'limiter',
        'req/s (service / peer)',
        'ratio',
        'target',
        'ratio in each round',
        'p50 ms',
        'p99 ms',
        'server CPU µs a request',
        'CPU ratio',
      ],
      rows,
    ),
  ];
}

/**
 * With `--against`: this build's service beside the earlier build's, each round's ratio taken within the
 * round (the two runs seconds apart), and the CPU each spent a request; nothing without it.
 */
function againstLines(scenarios: readonly Scenario[]): string[] {
  const compared = scenarios.filter((s) => s.rounds.some((r) => r.earlier !== undefined));
  if (compared.length === 0) return [];
  const rows = compared.map((s) => {
    const rounds = s.rounds.flatMap((r) => (r.earlier === undefined ? [] : [{ now: r.service, before: r.earlier }]));
    const cpu = (pick: (r: (typeof rounds)[number]) => LoadRun) => {
      const values = rounds.map((r) => pick(r).cpuUsPerRequest).filter((v): v is number => v !== undefined);
      return values.length === 0 ? 'n/a' : median(values).toFixed(0);
    };
    return [
      s.request,
      s.limiter,
      `${count(median(rounds.map((r) => r.now.rps)))} / ${count(median(rounds.map((r) => r.before.rps)))}`,
      `**${ratio(median(rounds.map((r) => r.now.rps / r.before.rps)))}**`,
      runs(
        rounds.map((r) => r.now.rps / r.before.rps),
        ratio,
      ),
      `${cpu((r) => r.now)} / ${cpu((r) => r.before)}`,
    ];
  });
  return [
    '',
    'Against an earlier build (`--against`): its service, in-process limiter, on a database its own code',
    ...(peerScenarios(compared).length === 0
      ? ["prepared, started with this build's, and measured right after it in each round under the same load."]
      : [
          "prepared, started with this build's, and measured after it in each round under the same load (GET and",
          'PATCH: after it and the Fastify peer).',
        ]),
    '',
    table(
      [
        'request',
        'limiter',
        'req/s (now / earlier)',
        'ratio',
        'ratio in each round',
        'server CPU µs a request (now / earlier)',
      ],
      rows,
    ),
  ];
}
