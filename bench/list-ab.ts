/**
 * An A/B of GET /v1/inventory with 1,000,000 pets: this checkout against another one (an earlier commit,
 * unpacked with its own node_modules and built), both services running at once on their own SQLite
 * files, the lists alternating between them (which goes first swaps every round), one client reading
 * each to its last byte. Prints each side's bytes, times, median time and server CPU a list, and its
 * resident set at start and at peak (VmHWM).
 *
 *   git archive <commit> | tar -x -C /tmp/before && ln -s "$PWD/node_modules" /tmp/before/node_modules
 *   (cd /tmp/before && npm run --silent build) && npm run --silent build
 *   node --import tsx bench/list-ab.ts /tmp/before [rounds]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fetchList } from './http.js';
import { preparePetstore, startService } from './petstore.js';
import { type Listed, timeToLastByte } from './scale.js';
import { procStatusBytes, type ServerProcess, stopAll } from './server-process.js';
import { median, mib } from './stats.js';

const PETS = 1_000_000;

const [otherTree, roundsArg] = process.argv.slice(2);
if (otherTree === undefined) throw new Error('usage: node --import tsx bench/list-ab.ts <other checkout> [rounds]');
const rounds = Number(roundsArg ?? 7);
const other = (await import(resolve(otherTree, 'bench/petstore.ts'))) as typeof import('./petstore.js');
const dir = await mkdtemp(join(tmpdir(), 'list-ab-'));
const sides = [
  { name: 'other', prepare: other.preparePetstore, start: other.startService },
  { name: 'this', prepare: preparePetstore, start: startService },
];
const servers: ServerProcess[] = [];
try {
  const keys = await Promise.all(sides.map((side) => side.prepare(join(dir, `${side.name}.db`), PETS)));
  for (const side of sides) {
    servers.push(await side.start(side.name, { db: join(dir, `${side.name}.db`) }, join(dir, `${side.name}.log`)));
  }
  const atStart = servers.map((server) => procStatusBytes(server.pid, 'VmRSS') ?? 0);
  const bytes = await Promise.all(
    servers.map(async (server, i) => Buffer.byteLength(await fetchList(server, keys[i] as string))),
  );
  const listed: Listed[][] = [[], []];
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const i of order) listed[i]?.push(await timeToLastByte(servers[i] as ServerProcess, keys[i] as string));
    console.log(
      `round ${round + 1}: ${sides.map((s, i) => `${s.name} ${listed[i]?.at(-1)?.seconds.toFixed(3)} s`).join(', ')}`,
    );
  }
  sides.forEach((side, i) => {
    const runs = listed[i] ?? [];
    const server = servers[i] as ServerProcess;
    console.log(
      `${side.name}: ${bytes[i]} bytes; median ${median(runs.map((r) => r.seconds)).toFixed(3)} s to the last byte ` +
        `(${runs.map((r) => r.seconds.toFixed(3)).join(', ')}); median server CPU ${median(runs.map((r) => r.cpuSeconds)).toFixed(2)} s; ` +
        `RSS ${mib(atStart[i] ?? 0)} at start, peak ${mib(procStatusBytes(server.pid, 'VmHWM') ?? 0)}`,
    );
  });
} finally {
  await stopAll(servers);
  await rm(dir, { recursive: true, force: true });
}
