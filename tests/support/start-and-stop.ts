/**
 * A program that runs the whole service once, as an embedder of `petstore-inventory/server` would
 * (its entry, src/composition/index.ts): starts it with the environment's configuration, sends it a
 * few requests, stops it, then runs one admin command. It then writes to the file named by
 * START_AND_STOP_REPORT what is still alive of what was made since it began (timers, sockets,
 * listeners, threads, child processes), with where each was made, and ends without process.exit: it
 * exits only once nothing is left holding its event loop.
 *
 * `node --import tsx tests/support/start-and-stop.ts`; the environment as for `npm start`, plus
 * PETSTORE_TEST_KEY, a key of the store, for a request that is authenticated.
 */
import { createHook, executionAsyncId } from 'node:async_hooks';
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';

/**
 * The resources that hold something open: an unref'd timer does not keep the process alive, but one left
 * running is a leak all the same (it runs its task against a closed store), so timers are watched too.
 */
const WATCHED: ReadonlySet<string> = new Set([
  'Timeout',
  'TCPSERVERWRAP',
  'TCPWRAP',
  'PIPESERVERWRAP',
  'PIPEWRAP',
  'UDPWRAP',
  'WORKER',
  'MESSAGEPORT',
  'PROCESSWRAP',
  'SIGNALWRAP',
  'FSEVENTWRAP',
  'STATWATCHER',
]);

export interface Leftover {
  readonly type: string;
  /** Where it was made: the frames of the stack, this program's and Node's internals left out. */
  readonly madeAt: readonly string[];
}

const live = new Map<number, { type: string; stack: string }>();
const hook = createHook({
  init(asyncId, type) {
    if (!WATCHED.has(type)) return;
    const holder: { stack?: string } = {};
    Error.captureStackTrace(holder);
    live.set(asyncId, { type, stack: holder.stack ?? '' });
  },
  destroy(asyncId) {
    live.delete(asyncId);
  },
});
hook.enable();

/** GET `url` on a connection of its own (no keep-alive agent, which would keep one open), its status. */
function get(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, { agent: false, headers }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    })
      .once('error', reject)
      .end();
  });
}

const report = process.env.START_AND_STOP_REPORT;
if (report === undefined) throw new Error('START_AND_STOP_REPORT names no file');
const key = process.env.PETSTORE_TEST_KEY;

const { readConfig, runAdminCommand, startService } = await import('../../src/composition/index.js');
const config = readConfig(process.env);
const service = await startService(config);
const statuses = {
  livez: await get(`${service.url}/livez`),
  readyz: await get(`${service.url}/readyz`),
  inventory: await get(`${service.url}/v1/inventory`, key === undefined ? {} : { authorization: `Bearer ${key}` }),
  unauthorized: await get(`${service.url}/v1/inventory`),
};
await service.stop('test');
// Prints the keys as JSON Lines: the keyed request's last use was written before the store closed.
const adminCode = await runAdminCommand(['keys', 'list', '--json'], config);

/** Made by tsx, which runs this TypeScript (its esbuild service thread): not the service's. */
const RUNNERS = ['/node_modules/tsx/', '/node_modules/esbuild/'];

// Destroy hooks run a turn after a handle closes, and Node's HTTP keeps the Date header a second with a
// timer of its own: the snapshot is taken past that, from a timer of this program's, which is left out.
setTimeout(() => {
  const self = executionAsyncId();
  const leftovers: Leftover[] = [...live]
    .filter(([asyncId, { stack }]) => asyncId !== self && !RUNNERS.some((runner) => stack.includes(runner)))
    .map(([, { type, stack }]) => ({
      type,
      madeAt: stack
        .split('\n')
        .slice(1)
        .map((line) => line.trim())
        .filter((line) => !line.includes('node:internal') && !line.includes('start-and-stop.ts')),
    }));
  hook.disable();
  writeFileSync(report, JSON.stringify({ statuses, adminCode, leftovers }));
}, 1_100);
