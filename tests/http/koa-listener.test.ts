import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import Koa from 'koa';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { koaListener } from '../../src/adapters/http/server/koa-listener.js';

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Status, the headers a test compares, and the body of one request to `app` through `listener`. */
async function exchange(listener: RequestListener, init: RequestInit = {}, path = '/') {
  const origin = await serve(listener);
  const response = await fetch(`${origin}${path}`, init);
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    length: response.headers.get('content-length'),
    body: await response.text(),
  };
}

/** Each app answered by Koa's own callback and by koaListener: the answers must be the same. */
const apps: Record<string, (app: Koa) => void> = {
  'no middleware (404)': () => {},
  'a string body': (app) =>
    app.use((ctx) => {
      ctx.body = 'hello';
    }),
  'a JSON body': (app) =>
    app.use((ctx) => {
      ctx.body = { a: 1 };
    }),
  'a Buffer body': (app) =>
    app.use((ctx) => {
      ctx.body = Buffer.from('bytes');
    }),
  'a stream body': (app) =>
    app.use((ctx) => {
      ctx.type = 'text/plain';
      ctx.body = Readable.from(['a', 'b', 'c']);
    }),
  'an explicit null body': (app) =>
    app.use((ctx) => {
      ctx.status = 200;
      ctx.body = null;
    }),
  'a status without body': (app) =>
    app.use((ctx) => {
      ctx.status = 418;
    }),
  'a 204': (app) =>
    app.use((ctx) => {
      ctx.body = 'dropped';
      ctx.status = 204;
    }),
  'a thrown error': (app) => {
    app.silent = true;
    app.use(() => {
      throw Object.assign(new Error('no'), { status: 409, expose: true });
    });
  },
  'an answer written by the middleware itself': (app) =>
    app.use((ctx) => {
      ctx.respond = false;
      ctx.res.statusCode = 201;
      ctx.res.end('raw');
    }),
};

describe('koaListener answers as Koa’s callback does', () => {
  for (const [name, build] of Object.entries(apps)) {
    for (const method of ['GET', 'HEAD']) {
      it(`${name}, ${method}`, async () => {
        const ours = new Koa();
        build(ours);
        const koas = new Koa();
        build(koas);
        expect(await exchange(koaListener(ours), { method })).toEqual(await exchange(koas.callback(), { method }));
      });
    }
  }
});

describe('koaListener reports a connection that fails mid-answer', () => {
  it('to the app’s error listener, once, with the context', async () => {
    const app = new Koa();
    const errors: Array<{ err: unknown; ctx: unknown }> = [];
    app.on('error', (err, ctx) => errors.push({ err, ctx }));
    let seen: unknown;
    app.use(async (ctx) => {
      seen = ctx;
      ctx.req.socket.emit('error', Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
      ctx.req.socket.emit('error', Object.assign(new Error('again'), { code: 'EPIPE' }));
      ctx.body = 'late';
    });
    const origin = new URL(await serve(koaListener(app)));
    const socket = connect(Number(origin.port), origin.hostname);
    socket.on('error', () => {});
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await vi.waitFor(() => expect(errors).toHaveLength(1));
    socket.destroy();
    expect(errors[0]?.err).toMatchObject({ code: 'ECONNRESET' });
    expect(errors[0]?.ctx).toBe(seen);
  });

  it('not once the answer is finished', async () => {
    const app = new Koa();
    const errors: unknown[] = [];
    app.on('error', (err) => errors.push(err));
    let serverSide: Socket | undefined;
    app.use((ctx) => {
      serverSide = ctx.req.socket;
      ctx.body = 'done';
    });
    const origin = new URL(await serve(koaListener(app)));
    const socket = connect(Number(origin.port), origin.hostname);
    socket.on('error', () => {});
    const answered = new Promise<void>((resolve) => socket.once('data', () => resolve()));
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await answered;
    await new Promise((resolve) => setTimeout(resolve, 20));
    serverSide?.emit('error', Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
    socket.destroy();
    expect(serverSide).toBeDefined();
    expect(errors).toEqual([]);
  });
});
