/**
 * Server CPU a request, split by thread: the event loop, the SQLite writer thread (the busiest other
 * thread under a PATCH load) and the rest (V8's compiler and collector helpers, libuv's pool), read from
 * /proc/<pid>/task/<tid>/stat around each load round (Linux only). It runs the built service (SQLite,
 * in-process limiter, as the HTTP section of `npm run bench`) after a 3 s warm-up, 50 connections.
 *
 * It builds the service afresh first (see buildService). CPU figures move with other work on the machine:
 * to compare two builds, run them in alternation, several times each, and compare medians.
 *
 * With `processes` above 1 it does it all again in that many fresh processes, each on a fresh database:
 * a process keeps the figures it settles into for its whole life (see bench/notes.md, "Two kinds of
 * service process"). Flags after it replace npm start's Node flags (`defaults`: none).
 *
 * Usage: node --import tsx bench/threads.ts [patch|get] [rounds=3] [seconds=5] [processes=1] [flags...]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIST_PETS, LIST_REQUESTS, patchRequests } from './http.js';
import { runLoad } from './load.js';
import { buildService, preparePetstore, startService } from './petstore.js';
import { threadSplit, ticksByThread } from './server-process.js';

const kind = process.argv[2] === 'get' ? 'get' : 'patch';
const rounds = Number(process.argv[3] ?? 3);
const seconds = Number(process.argv[4] ?? 5);
const processes = Number(process.argv[5] ?? 1);
const flags = process.argv.slice(6);
const nodeFlags = flags.length === 0 ? {} : { nodeFlags: flags[0] === 'defaults' ? [] : flags };
buildService();
for (let n = 1; n <= processes; n += 1) {
  if (processes > 1) console.log(`process ${n} of ${processes}`);
  await measureOneProcess();
}

async function measureOneProcess(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-threads-'));
  try {
    const db = join(dir, 'bench.db');
    const key = await preparePetstore(db, LIST_PETS);
    const server = await startService('service', { db, ...nodeFlags }, join(dir, 'service.log'));
    try {
      const requests = kind === 'get' ? LIST_REQUESTS : patchRequests(LIST_PETS, 50);
      const headers = { authorization: `Bearer ${key}` };
      await runLoad(server, requests, headers, 3);
      console.log(`${kind.toUpperCase()}: server CPU µs a request, by thread`);
      for (let round = 1; round <= rounds; round += 1) {
        const before = ticksByThread(server.pid);
        const run = await runLoad(server, requests, headers, seconds);
        const { loop, busiestOther, rest } = threadSplit(server.pid, before, ticksByThread(server.pid), run.requests);
        console.log(
          `round ${round}: ${run.rps.toFixed(0)} requests/s, all ${run.cpuUsPerRequest?.toFixed(0)}, ` +
            `event loop ${loop.toFixed(0)}, writer ${busiestOther.toFixed(0)}, other threads ${rest.toFixed(0)}`,
        );
      }
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
