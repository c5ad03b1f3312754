import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createStockApp } from '../stock-app.js';

const BIG = '9007199254740993'; // 2^53 + 1: a number would round it to 2^53.

const send = (app, method, path, body) =>
  app.request(path, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });

describe('the stock app, in process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stock-app-'));
  const { app, close } = createStockApp({ path: join(dir, 'stock.db') });
  after(async () => {
    await close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('adds a pet with an exact 64-bit id and reads its stock', async () => {
    const added = await send(app, 'POST', '/pets', { id: BIG, name: 'Rex', quantity: 3 });
    assert.equal(added.status, 201);
    assert.deepEqual(await added.json(), { petId: BIG, quantity: 3, reserved: 0, status: 'available', version: 1 });
    const read = await send(app, 'GET', `/stock/${BIG}`);
    assert.equal((await read.json()).petId, BIG);
  });

  it('sets the stock, and the core moves the status with it', async () => {
    const set = await send(app, 'POST', `/stock/${BIG}`, { quantity: 0 });
    assert.equal(set.status, 200);
    assert.deepEqual(await set.json(), { petId: BIG, quantity: 0, reserved: 0, status: 'sold', version: 2 });
  });

  it('moves the stock by a delta and refuses to go below zero', async () => {
    assert.equal((await (await send(app, 'POST', `/stock/${BIG}`, { delta: 5 })).json()).quantity, 5);
    const below = await send(app, 'POST', `/stock/${BIG}`, { delta: -6 });
    assert.equal(below.status, 409);
    assert.equal((await below.json()).error, 'insufficient_stock');
  });

  it('writes with ifVersion only if nobody wrote since', async () => {
    const { version } = await (await send(app, 'GET', `/stock/${BIG}`)).json();
    assert.equal((await send(app, 'POST', `/stock/${BIG}`, { quantity: 7, ifVersion: version })).status, 200);
    const stale = await send(app, 'POST', `/stock/${BIG}`, { quantity: 8, ifVersion: version });
    assert.equal(stale.status, 412);
  });

  it('answers its own errors: unknown pet, bad id, bad body, duplicate', async () => {
    assert.equal((await send(app, 'GET', '/stock/404')).status, 404);
    assert.equal((await send(app, 'GET', '/stock/rex')).status, 400);
    assert.equal((await send(app, 'POST', `/stock/${BIG}`, { quantity: -1 })).status, 400);
    assert.equal((await send(app, 'POST', '/pets', { id: BIG, name: 'Rex', quantity: 1 })).status, 409);
  });

  it('lists the stock in pet id order', async () => {
    await send(app, 'POST', '/pets', { id: '2', name: 'Tom', quantity: 12 });
    const list = await (await send(app, 'GET', '/stock')).json();
    assert.deepEqual(
      list.map((item) => item.petId),
      ['2', BIG],
    );
  });
});

describe('the stock app as a server (server.js)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stock-server-'));
  let child;
  let url;
  before(async () => {
    child = spawn(process.execPath, [join(import.meta.dirname, '..', 'server.js')], {
      env: { ...process.env, PORT: '0', STOCK_DB: join(dir, 'stock.db') },
    });
    url = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
        const match = /listening on (http:\/\/\S+)/.exec(out);
        if (match) resolve(match[1]);
      });
      child.stderr.on('data', (chunk) => {
        out += chunk;
      });
      child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('serves over HTTP, and exits 0 on SIGTERM', async () => {
    const added = await fetch(`${url}/pets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: '1', name: 'Kit', quantity: 2 }),
    });
    assert.equal(added.status, 201);
    assert.equal((await (await fetch(`${url}/stock/1`)).json()).quantity, 2);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  });
});
