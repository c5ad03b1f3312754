/**
 * Where a PATCH's server CPU goes, in three layers measured in the same rounds: bare Koa (the HTTP
 * section's baseline, reading and parsing the same body), bare Koa with the store's durable write
 * (bench/store-write-server.ts: the SQLite storage as the service opens it, writer thread and group
 * commit with synchronous FULL; again with NORMAL, which skips the fsync of each commit, to show what
 * durability costs) and the service (built afresh, SQLite, in-process limiter, access log
 * and metrics on, as the HTTP section). The loads alternate, the order turning each round, so that
 * the machine's other work weighs on the three alike; each figure is a median over the rounds. CPU
 * is read per thread from /proc (Linux only): the event loop, the busiest other thread (the writer
 * thread, where there is one) and the rest (V8's and libuv's helpers).
 *
 * The "ratio" is the issue's: bare Koa's CPU a request over the server's, 1 for bare Koa itself.
 *
 * Earlier builds of the service named after the rounds and seconds join the comparison, each on a
 * database its own code prepared: this is how a change to the write path is checked against a release
 * in one run (1.1 is c4ed583):
 *
 *   mkdir /tmp/v11 && git archive c4ed583 | tar -x -C /tmp/v11
 *   ln -s "$PWD/node_modules" /tmp/v11/node_modules && (cd /tmp/v11 && npx tsc -p tsconfig.build.json)
 *   node --import tsx bench/patch-floor.ts 9 3 /tmp/v11/dist
 *
 * Usage: node --import tsx bench/patch-floor.ts [rounds=9] [seconds=3] [dist folder ...]
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIST_PETS, patchRequests } from './http.js';
import { runLoad } from './load.js';
import {
  buildService,
  cleanEnv,
  prepareEarlierPetstore,
  preparePetstore,
  startBaseline,
  startService,
} from './petstore.js';
import {
  type ServerProcess,
  startServer,
  stopAll,
  type ThreadSplit,
  threadSplit,
  ticksByThread,
} from './server-process.js';
import { median, table } from './stats.js';

const [roundsArg, secondsArg, ...earlier] = process.argv.slice(2);
const rounds = Number(roundsArg ?? '9');
const seconds = Number(secondsArg ?? '3');

/** A server of the comparison, and the headers its requests carry. */
interface Side {
  readonly name: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly server: ServerProcess;
}

interface Split extends ThreadSplit {
  readonly all: number;
}

/** One load on `server`, with its CPU µs a request, split by thread. */
async function measure(server: ServerProcess, headers: Readonly<Record<string, string>>): Promise<Split> {
  const before = ticksByThread(server.pid);
  const run = await runLoad(server, patchRequests(LIST_PETS, 50), headers, seconds);
  const split = threadSplit(server.pid, before, ticksByThread(server.pid), run.requests);
  return { ...split, all: split.loop + split.busiestOther + split.rest };
}

buildService();
const dir = await mkdtemp(join(tmpdir(), 'petstore-patch-floor-'));
const servers: ServerProcess[] = [];
try {
  const serviceDb = join(dir, 'service.db');
  const storeDb = join(dir, 'store.db');
  const key = await preparePetstore(serviceDb, LIST_PETS);
  const normalDb = join(dir, 'normal.db');
  await preparePetstore(storeDb, LIST_PETS);
  await preparePetstore(normalDb, LIST_PETS);
  await writeFile(join(dir, 'body.json'), '{"items":[]}');
  const storeWrite = (name: string, db: string, synchronous: 'FULL' | 'NORMAL'): Promise<ServerProcess> =>
    startServer(
      name,
      ['--import', 'tsx', join(import.meta.dirname, 'store-write-server.ts'), db, synchronous],
      cleanEnv(),
      join(dir, `${name}.log`),
    );
  const sides: Side[] = [
    {
      name: 'bare Koa',
      headers: {},
      server: await startBaseline('baseline', join(dir, 'body.json'), join(dir, 'b.log')),
    },
    {
      name: 'bare Koa + the store write',
      headers: {},
      server: await storeWrite('store-write', storeDb, 'FULL'),
    },
    {
      name: 'the same, synchronous NORMAL (no fsync a commit)',
      headers: {},
      server: await storeWrite('store-write-normal', normalDb, 'NORMAL'),
    },
    {
      name: 'service (in-process limiter)',
      headers: { authorization: `Bearer ${key}` },
      server: await startService('service', { db: serviceDb }, join(dir, 'service.log')),
    },
  ];
  servers.push(...sides.map((side) => side.server));
  for (const [i, dist] of earlier.entries()) {
    const db = join(dir, `earlier-${i}.db`);
    const key = prepareEarlierPetstore(dist, db, LIST_PETS);
    const server = await startService(`earlier-${i}`, { db, dist }, join(dir, `earlier-${i}.log`));
    servers.push(server);
    sides.push({ name: `service of ${dist}`, headers: { authorization: `Bearer ${key}` }, server });
  }
  for (const side of sides) await runLoad(side.server, patchRequests(LIST_PETS, 50), side.headers, 3);
  const splits = sides.map(() => [] as Split[]);
  for (let round = 0; round < rounds; round += 1) {
    for (let k = 0; k < sides.length; k += 1) {
      const i = (round + k) % sides.length;
      const side = sides[i];
      if (side !== undefined) splits[i]?.push(await measure(side.server, side.headers));
    }
  }
  const baseline = median((splits[0] ?? []).map((s) => s.all));
  const f0 = (x: number): string => x.toFixed(0);
  const rows = sides.map((side, i) => {
    const mine = splits[i] ?? [];
    const of = (pick: (s: Split) => number): number => median(mine.map(pick));
    return [
      side.name,
      f0(of((s) => s.all)),
      f0(of((s) => s.loop)),
      f0(of((s) => s.busiestOther)),
      f0(of((s) => s.rest)),
      (baseline / of((s) => s.all)).toFixed(2),
    ];
  });
  process.stdout.write(
    `PATCH /v1/inventory/{petId}, ${rounds} rounds of ${seconds} s each, server CPU µs a request (medians):\n` +
      `${table(['server', 'all threads', 'event loop', 'busiest other thread', 'other threads', 'ratio'], rows)}\n`,
  );
} finally {
  await stopAll(servers);
  await rm(dir, { recursive: true, force: true });
}
