/**
 * The floors PATCH is judged against (issues 18 and 21): where a PATCH's server CPU goes, in layers
 * measured in the same rounds: bare Koa (the HTTP section's baseline, reading and parsing the same body),
 * bare Koa with the store's durable write (bench/store-write-server.ts: the SQLite storage as the service
 * opens it, writer thread and group commit with synchronous FULL; again with NORMAL, which skips the
 * fsync of each commit, to show what durability costs) and the service (SQLite, in-process limiter,
 * access log and metrics on, as the HTTP section). The loads alternate, the order turning each round, so
 * that the machine's other work weighs on them alike; each figure is a median over the rounds. CPU is
 * read per thread from /proc (Linux only): the event loop, the busiest other thread (the writer thread,
 * where there is one) and the rest (V8's and libuv's helpers).
 *
 * With `--against=<dist folder>`, the service of that earlier build joins the rounds, on a database its
 * own code prepared, and both services are measured again with 100-entry batches (every order of a batch
 * crosses to the writer thread and back, as a PATCH's one does): how a change to the write path is
 * checked against a release in one run.
 * Run alone with `npm run bench -- --only=floors` (or `-- --quick --only=floors`, one short round).
 * PostgreSQL's floor (pgbench) runs in every round of the postgres suite.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LoadSettings } from './http.js';
import { BATCH_ENTRIES, batchRequests, LIST_PETS, patchRequests } from './http.js';
import type { LoadRequest } from './load.js';
import { runLoad } from './load.js';
import { cleanEnv, prepareEarlierPetstore, preparePetstore, startBaseline, startService } from './petstore.js';
import {
  type ServerProcess,
  startServer,
  startTogether,
  stopAll,
  type ThreadSplit,
  threadSplit,
  ticksByThread,
} from './server-process.js';
import { median, ratio, runs, table } from './stats.js';

export type FloorsSettings = LoadSettings;

/** Server CPU µs a request, by thread, and all threads together. */
interface Split extends ThreadSplit {
  readonly all: number;
}

export interface FloorSide {
  readonly name: string;
  readonly splits: Split[];
  /** What it was sent: PATCHes (absent in results from before batches were measured), or batches. */
  readonly load?: 'patch' | 'batch';
}

/** The sides in the order measured, bare Koa first: the baseline. */
export type FloorsResult = FloorSide[];

/** A server of the comparison, and the headers its requests carry. */
interface Side {
  readonly name: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly server: ServerProcess;
  readonly load: 'patch' | 'batch';
}

const requests = (load: Side['load']): LoadRequest[] =>
  load === 'batch' ? batchRequests() : patchRequests(LIST_PETS, 50);

/** One load on `server`, with its CPU µs a request, split by thread. */
async function measure(side: Side, seconds: number): Promise<Split> {
  const before = ticksByThread(side.server.pid);
  const run = await runLoad(side.server, requests(side.load), side.headers, seconds);
  const split = threadSplit(side.server.pid, before, ticksByThread(side.server.pid), run.requests);
  return { ...split, all: split.loop + split.busiestOther + split.rest };
}

/** The start of the names of an earlier build's sides. */
const EARLIER = 'service of ';

async function startSides(dir: string, against: string | undefined, servers: ServerProcess[]): Promise<Side[]> {
  const serviceDb = join(dir, 'floors-service.db');
  const key = await preparePetstore(serviceDb, LIST_PETS);
  await writeFile(join(dir, 'floors-body.json'), '{"items":[]}');
  const started = (server: ServerProcess): ServerProcess => {
    servers.push(server);
    return server;
  };
  const storeWrite = async (name: string, synchronous: 'FULL' | 'NORMAL'): Promise<ServerProcess> => {
    const db = join(dir, `floors-${name}.db`);
    await preparePetstore(db, LIST_PETS);
    const script = join(import.meta.dirname, 'store-write-server.ts');
    return started(
      await startServer(name, ['--import', 'tsx', script, db, synchronous], cleanEnv(), join(dir, `${name}.log`)),
    );
  };
  const sides: Side[] = [
    {
      name: 'bare Koa',
      headers: {},
      server: started(await startBaseline('baseline', join(dir, 'floors-body.json'), join(dir, 'floors-b.log'))),
      load: 'patch',
    },
    { name: 'bare Koa + the store write', headers: {}, server: await storeWrite('store-write', 'FULL'), load: 'patch' },
    {
      name: 'the same, synchronous NORMAL (no fsync a commit)',
      headers: {},
      server: await storeWrite('store-write-normal', 'NORMAL'),
      load: 'patch',
    },
  ];
  // This build's service and the earlier build's start together, last (see startTogether).
  const earlierDb = join(dir, 'floors-earlier.db');
  const earlierKey = against === undefined ? undefined : prepareEarlierPetstore(against, earlierDb, LIST_PETS);
  const [serviceServer, earlierServer] = await startTogether(
    servers,
    startService('service', { db: serviceDb }, join(dir, 'floors-service.log')),
    against === undefined
      ? undefined
      : startService('earlier', { db: earlierDb, dist: against }, join(dir, 'floors-earlier.log')),
  );
  const service: Side = {
    name: 'service (in-process limiter)',
    headers: { authorization: `Bearer ${key}` },
    server: serviceServer,
    load: 'patch',
  };
  sides.push(service);
  if (against !== undefined && earlierServer !== undefined && earlierKey !== undefined) {
    const server = earlierServer;
    const earlier: Side = {
      name: `${EARLIER}${against}`,
      headers: { authorization: `Bearer ${earlierKey}` },
      server,
      load: 'patch',
    };
    const batches = `, POST /v1/inventory/batch (${BATCH_ENTRIES} entries)`;
    sides.push(
      earlier,
      { ...service, name: `${service.name}${batches}`, load: 'batch' },
      { ...earlier, name: `${earlier.name}${batches}`, load: 'batch' },
    );
  }
  return sides;
}

/** Every side warmed up, then measured in rounds, the order turning each round. */
export async function runFloorsSuite(
  dir: string,
  settings: FloorsSettings,
  against: string | undefined,
  progress: (line: string) => void,
): Promise<FloorsResult> {
  const servers: ServerProcess[] = [];
  try {
    const sides = await startSides(dir, against, servers);
    for (const side of sides) await runLoad(side.server, requests(side.load), side.headers, settings.warmupSeconds);
    const result: FloorsResult = sides.map((side) => ({ name: side.name, splits: [], load: side.load }));
    for (let round = 0; round < settings.rounds; round += 1) {
      for (let k = 0; k < sides.length; k += 1) {
        const i = (round + k) % sides.length;
        result[i]?.splits.push(await measure(sides[i] as Side, settings.seconds));
      }
      progress(`  round ${round + 1}: ${result.map((s) => s.splits.at(-1)?.all.toFixed(0)).join(' / ')} µs a request`);
    }
    return result;
  } finally {
    await stopAll(servers);
  }
}

/**
 * Each earlier build's side beside this build's service under the same load, round by round: this
 * build's CPU a request over the earlier one's, measured seconds apart in the same round. The median of
 * these ratios, and how many rounds lean each way, say more than two medians taken apart: on a shared
 * machine whole rounds move by a few per cent, both builds alike.
 */
function againstRows(result: FloorsResult): string[][] {
  return result
    .filter((side) => side.name.startsWith(EARLIER))
    .flatMap((earlier) => {
      const now = result.find(
        (side) => side.load === earlier.load && !side.name.startsWith(EARLIER) && side.name.startsWith('service'),
      );
      if (now === undefined) return [];
      const ratios = now.splits.flatMap((split, round) => {
        const then = earlier.splits[round];
        return then === undefined ? [] : [split.all / then.all];
      });
      const above = ratios.filter((r) => r > 1).length;
      return [
        [
          `${earlier.load === 'batch' ? `batch of ${BATCH_ENTRIES}` : 'PATCH'} against ${earlier.name.slice(EARLIER.length).split(',')[0]}`,
          ratio(median(ratios)),
          `${above} of ${ratios.length}`,
          runs(ratios, ratio),
        ],
      ];
    });
}

/** The floors' section of bench/README.md. */
export function floorsSection(result: FloorsResult, settings: FloorsSettings): string {
  const baseline = median((result[0]?.splits ?? []).map((s) => s.all));
  const against = againstRows(result);
  const f0 = (x: number): string => x.toFixed(0);
  const rows = result.map((side) => {
    const of = (pick: (s: Split) => number): number => median(side.splits.map(pick));
    return [
      side.name,
      f0(of((s) => s.all)),
      f0(of((s) => s.loop)),
      f0(of((s) => s.busiestOther)),
      f0(of((s) => s.rest)),
      side.load === 'batch' ? '-' : ratio(baseline / of((s) => s.all)),
    ];
  });
  return [
    '## Floors: where the CPU of a PATCH goes, layer by layer',
    '',
    '```sh',
    'npm run bench -- --only=floors                           # this section alone, printed',
    'npm run bench -- --only=floors --against=<earlier dist>  # with the service of an earlier build',
    'npm run bench -- --quick --only=floors                   # one short round',
    '```',
    '',
    `PATCH /v1/inventory/{petId}, ${settings.rounds} round(s) of ${settings.seconds} s on each server, the order`,
    'turning each round; server CPU µs a request, medians. "Ratio" is bare Koa\'s CPU a request over the',
    "server's (1.00 for bare Koa itself). The store write is bare Koa with the SQLite storage's durable write",
    '(`bench/store-write-server.ts`: writer thread, group commit), synchronous FULL as the service runs it,',
    "then NORMAL; what the service adds over it is everything else it does. An earlier build's service starts",
    `with this build's; both are measured again with batches of ${BATCH_ENTRIES} entries (CPU µs a batch; no ratio). PostgreSQL's`,
    'floor (pgbench) is in the PostgreSQL section.',
    '',
    table(['server', 'all threads', 'event loop', 'busiest other thread', 'other threads', 'ratio'], rows),
    ...(against.length === 0
      ? []
      : [
          '',
          "This build's CPU a request over the earlier build's, each round's own ratio (both measured in that",
          'round, seconds apart); above 1.00, this build spent more:',
          '',
          table(['load', 'median of the rounds', 'rounds above 1.00', 'each round'], against),
        ]),
  ].join('\n');
}
