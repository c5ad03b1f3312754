import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { pipeline, Readable, Stream } from 'node:stream';
import type Koa from 'koa';

/** The Koa context as this listener uses it: what Koa's own `respond` reads. */
interface KoaContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly app: Koa;
  readonly method: string;
  readonly status: number;
  readonly message: string;
  readonly writable: boolean;
  readonly response: { readonly _explicitNullBody?: boolean; has(field: string): boolean; readonly length?: number };
  body: unknown;
  type: string;
  length: number | undefined;
  remove(field: string): void;
  onerror(err: unknown): void;
}

type Composed = (ctx: KoaContext) => Promise<unknown>;

/** What Koa 3 keeps on the app and does not type: its middleware composer, and its context storage. */
interface KoaInternals {
  readonly compose?: (middleware: Koa['middleware']) => Composed;
  readonly ctxStorage?: unknown;
}

/** The statuses whose answers carry no body (the `statuses` package's `empty`, which Koa uses). */
const EMPTY_STATUSES: ReadonlySet<number> = new Set([204, 205, 304]);

/**
 * The request of a connection still being answered, for the connection's 'error' to be reported to:
 * one listener a connection, where Koa attaches `on-finished` to every request (a handful of listeners,
 * closures and arrays each, among a PATCH's largest allocations). Requests of a connection
 * run one at a time (oneRequestAtATime), so one slot is enough.
 */
interface SocketWatch {
  current: KoaContext | undefined;
}

const watches = new WeakMap<Socket, SocketWatch>();

function watchSocket(socket: Socket): SocketWatch {
  let watch = watches.get(socket);
  if (watch === undefined) {
    const created: SocketWatch = { current: undefined };
    socket.on('error', (err: Error) => {
      const ctx = created.current;
      created.current = undefined;
      // As `on-finished` does: an error reaches the request only while its answer is unfinished, once.
      if (ctx !== undefined && !ctx.res.writableFinished) ctx.onerror(err);
    });
    watches.set(socket, created);
    watch = created;
  }
  return watch;
}

/**
 * Koa's `respond` (koa 3.3, lib/application.js), which Koa does not export: writes `ctx.body` as Koa
 * would, streams and all.
 */
function respond(ctx: KoaContext): void {
  if ((ctx as { respond?: boolean }).respond === false) return;
  const res = ctx.res;
  if (!ctx.writable) {
    res.end();
    return;
  }
  let body = ctx.body;
  const code = ctx.status;
  if (EMPTY_STATUSES.has(code)) {
    ctx.body = null;
    res.end();
    return;
  }
  if (ctx.method === 'HEAD') {
    if (!res.headersSent && !ctx.response.has('Content-Length')) {
      const { length } = ctx.response;
      if (Number.isInteger(length)) ctx.length = length;
    }
    res.end();
    return;
  }
  if (body === null || body === undefined) {
    if (ctx.response._explicitNullBody) {
      ctx.remove('Content-Type');
      ctx.remove('Transfer-Encoding');
      ctx.length = 0;
      res.end();
      return;
    }
    const text = ctx.req.httpVersionMajor >= 2 ? String(code) : ctx.message || String(code);
    if (!res.headersSent) {
      ctx.type = 'text';
      ctx.length = Buffer.byteLength(text);
    }
    res.end(text);
    return;
  }
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    res.end(body);
    return;
  }
  let stream: NodeJS.ReadableStream | undefined;
  if (body instanceof Blob) stream = Readable.from(body.stream() as AsyncIterable<unknown>);
  else if (body instanceof ReadableStream) stream = Readable.from(body as AsyncIterable<unknown>);
  else if (body instanceof Response) stream = Readable.from((body.body ?? '') as AsyncIterable<unknown>);
  else if (isStream(body)) stream = body;
  if (stream !== undefined) {
    pipeline(stream, res, (err) => {
      if (err && ctx.app.listenerCount('error')) ctx.onerror(err);
    });
    return;
  }
  body = JSON.stringify(body);
  if (!res.headersSent) ctx.length = Buffer.byteLength(body as string);
  res.end(body);
}

/** Koa's own test of a stream (lib/is-stream.js). */
function isStream(value: unknown): value is NodeJS.ReadableStream {
  if (value instanceof Stream) return true;
  const s = value as Record<string, unknown> | null;
  return (
    s !== null &&
    typeof s === 'object' &&
    !!s.readable &&
    typeof s.pipe === 'function' &&
    typeof s.read === 'function' &&
    typeof s.readable === 'boolean' &&
    typeof s.readableObjectMode === 'boolean' &&
    typeof s.destroy === 'function' &&
    typeof s.destroyed === 'boolean'
  );
}

/**
 * What `app.callback()` answers, for less a request: the same context, the same 404 until a middleware
 * answers, the same `respond`, and every failure to `ctx.onerror`, the connection's included (see
 * SocketWatch). Koa's own callback where the app needs what this one leaves out (its context storage).
 */
export function koaListener(app: Koa): RequestListener {
  const internals = app as unknown as KoaInternals;
  if (internals.ctxStorage || typeof internals.compose !== 'function') return app.callback();
  const fn = internals.compose(app.middleware);
  // As Koa's callback: the emitter calls it with the app as `this`.
  if (!app.listenerCount('error')) app.on('error', app.onerror);

  const handle = async (ctx: KoaContext): Promise<void> => {
    try {
      await fn(ctx);
      respond(ctx);
    } catch (err) {
      ctx.onerror(err);
    }
  };

  return (req, res) => {
    const ctx = app.createContext(req, res) as unknown as KoaContext;
    res.statusCode = 404;
    watchSocket(req.socket).current = ctx;
    void handle(ctx);
  };
}
