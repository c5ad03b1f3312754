/**
 * Bare Koa and the store's durable write, nothing else: the HTTP section's baseline server with its
 * PATCH /v1/inventory/:petId answered after `InventoryRepository.write` of the SQLite storage, as the
 * service opens it (writer thread, group commit, synchronous FULL unless told NORMAL). The whole write of the service
 * (the core's decision, the entry's next version, its history row, the outbox trigger), with none of
 * what the service does around it: no key, limiter, validation, request id, access log, metrics or
 * limit headers. For bench/patch-floor.ts and bench/garbage.ts.
 * Usage: node --import tsx bench/store-write-server.ts <database file, with pets> [FULL|NORMAL] [src|dist]
 * - src (the default): the storage of the sources, as the tests run it;
 * - dist: the storage of dist/, the build the service runs (`npm run build` first). Its writer thread
 *   starts from a .js file, in which the process's `--import`s run again (bench/allocation-probe.mjs
 *   counts that thread's heap so); from the sources it starts from a string of code, which they skip.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import type * as SqliteStorage from '../src/adapters/sqlite/sqlite-storage.js';
import { petId } from '../src/domain/pet-id.js';
import { quantity } from '../src/domain/quantity.js';
import { jsonBody } from './request-body.js';

const path = process.argv[2];
if (path === undefined) throw new Error('usage: store-write-server.ts <database file> [FULL|NORMAL] [src|dist]');
const synchronous = process.argv[3] === 'NORMAL' ? 'NORMAL' : 'FULL';
const build = process.argv[4] === 'dist' ? 'dist' : 'src';
const { openSqliteStorage } = (await import(`../${build}/adapters/sqlite/sqlite-storage.js`)) as typeof SqliteStorage;
const storage = openSqliteStorage({ path, synchronous, writer: 'worker' });

const router = new Router();
router.patch('/v1/inventory/:petId', async (ctx) => {
  const body = await jsonBody<{ quantity: number }>(ctx.req);
  const written = await storage.inventory.write({
    orders: [{ kind: 'set', petId: petId(BigInt(ctx.params.petId as string)), quantity: quantity(body.quantity) }],
    actor: 'key_floor',
    atMs: Date.now(),
  });
  if (!written.ok) throw new Error(written.error.message);
  const [entry] = written.value.entries;
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = `{"petId":${ctx.params.petId},"quantity":${entry?.change.after.quantity},"status":"${entry?.change.after.status}"}`;
});

const app = new Koa();
app.use(router.routes());

const server = createServer(app.callback());
process.once('SIGTERM', () => {
  server.close();
  void storage.close().then(() => process.exit(0));
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${port}/v1` })}\n`);
});
