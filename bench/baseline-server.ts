/**
 * The baseline of the HTTP benchmarks: a bare Koa + @koa/router app, what any Koa service pays before it
 * does work of its own. No key check, no limiter, no store, no request log.
 * - GET /v1/inventory answers the bytes of a file read once at start: the service's own answer, so both
 *   send the same body.
 * - PATCH /v1/inventory/:petId, POST /v1/inventory/:petId/adjustments and POST /v1/inventory/batch read
 *   the JSON body with JSON.parse and answer the items it names, in the service's shapes.
 * Usage: node --import tsx bench/baseline-server.ts <body-file>; listens on a free port of 127.0.0.1 and
 * prints {"msg":"listening","url":"http://127.0.0.1:<port>/v1"}.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import { jsonBody } from './request-body.js';

const bodyFile = process.argv[2];
if (bodyFile === undefined) throw new Error('usage: baseline-server.ts <body-file>');
const inventory = readFileSync(bodyFile, 'utf8');

const router = new Router();
router.get('/v1/inventory', (ctx) => {
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = inventory;
});
router.patch('/v1/inventory/:petId', async (ctx) => {
  const { quantity } = await jsonBody<{ quantity: number }>(ctx.req);
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = `{"petId":${ctx.params.petId},"quantity":${quantity},"status":"available"}`;
});
router.post('/v1/inventory/batch', async (ctx) => {
  const { changes } = await jsonBody<{ changes: { petId: number; quantity: number }[] }>(ctx.req);
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = `{"items":[${changes
    .map((c) => `{"petId":${c.petId},"quantity":${c.quantity},"status":"available","version":2}`)
    .join(',')}]}`;
});
router.post('/v1/inventory/:petId/adjustments', async (ctx) => {
  const { delta } = await jsonBody<{ delta: number }>(ctx.req);
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = `{"petId":${ctx.params.petId},"quantity":${10 + delta},"status":"available"}`;
});

const app = new Koa();
app.use(router.routes());

const server = createServer(app.callback());
// Exiting on SIGTERM, rather than being killed by it, lets `node --cpu-prof` write its profile.
process.once('SIGTERM', () => process.exit(0));
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${port}/v1` })}\n`);
});
