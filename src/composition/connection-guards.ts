import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** How many expired bans may be kept before they are swept out (a ban is checked, not timed). */
const BANS_SWEPT_FROM = 10_000;

/**
 * The client addresses of a server's connections: how many each holds open, and which are refused for
 * a while. Past `maxPerAddress` open connections, or while its address is banned, a connection is
 * closed as soon as it is accepted, without an answer, as the global cap does: one client must not take
 * every connection the server will hold, nor make it set up connection after connection to abuse. Behind
 * a proxy every connection comes from the proxy's address, so there the proxy caps each client instead
 * (deploy/nginx), the cap is set at least as high as the global one, and no ban is given.
 */
export class ClientAddresses {
  private readonly open = new Map<string, number>();
  private readonly bannedUntil = new Map<string, number>();

  constructor(
    server: Server,
    private readonly maxPerAddress: number,
    private readonly nowMs: () => number = () => performance.now(),
  ) {
    // First, before Node's HTTP listener sets the connection up: a refused one costs nothing more.
    server.prependListener('connection', (socket: Socket) => this.admit(socket));
  }

  /** Refuses `address` new connections for `ms` (none when 0); its open ones are the caller's to close. */
  ban(address: string, ms: number): void {
    if (ms <= 0) return;
    if (this.bannedUntil.size >= BANS_SWEPT_FROM) {
      const now = this.nowMs();
      for (const [banned, until] of this.bannedUntil) if (until <= now) this.bannedUntil.delete(banned);
    }
    this.bannedUntil.set(address, this.nowMs() + ms);
  }

  private admit(socket: Socket): void {
    const address = socket.remoteAddress ?? '';
    const count = this.open.get(address) ?? 0;
    if (count >= this.maxPerAddress || this.banned(address)) {
      socket.destroy();
      return;
    }
    this.open.set(address, count + 1);
    socket.once('close', () => {
      const left = (this.open.get(address) ?? 1) - 1;
      if (left === 0) this.open.delete(address);
      else this.open.set(address, left);
    });
  }

  private banned(address: string): boolean {
    const until = this.bannedUntil.get(address);
    if (until === undefined) return false;
    if (until > this.nowMs()) return true;
    this.bannedUntil.delete(address);
    return false;
  }
}

/**
 * Writes `response` and half-closes the socket, then destroys it after `lingerMs` whether or not the
 * client has read the answer or closed its side: a socket that is only ended stays open (and holds a
 * descriptor and a place under the connection caps) for as long as the client keeps it.
 */
export function endThenDestroy(socket: Duplex, response: string, lingerMs: number): void {
  socket.end(response);
  const timer = setTimeout(() => socket.destroy(), lingerMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

interface ConnectionQueue {
  /** Whether a request of this connection is being handled (started and not yet answered). */
  busy: boolean;
  /** The pipelined requests that arrived meanwhile, in order. */
  readonly waiting: Array<readonly [IncomingMessage, ServerResponse]>;
}

/**
 * Runs the requests of one connection one at a time: Node hands the app every request a client
 * pipelines as soon as it is parsed, before the ones ahead of it are answered, so that a PATCH and the
 * GET behind it race (RFC 9112 9.3.2 allows only safe requests to run in parallel), and a client that
 * pipelines without reading makes the server build answers nobody collects. Here a request starts
 * once the one ahead of it has been written out (its response's `close`); when the connection closes,
 * the requests still waiting are dropped unprocessed. A connection with more than `maxWaiting` requests
 * waiting is destroyed, and `onOverrun` told of it: a client that far ahead of its answers is not
 * reading them.
 */
export function oneRequestAtATime(
  handler: RequestListener,
  maxWaiting: number,
  onOverrun: (socket: Socket) => void = () => {},
): RequestListener {
  const queues = new WeakMap<Socket, ConnectionQueue>();

  const start = (queue: ConnectionQueue, req: IncomingMessage, res: ServerResponse): void => {
    queue.busy = true;
    // A response closes once its answer is handed to the socket (just after `finish`), or when the
    // connection goes first: either way the one request of this connection is over.
    res.once('close', () => {
      queue.busy = false;
      const following = queue.waiting.shift();
      if (following === undefined) return;
      if (req.socket.destroyed) {
        queue.waiting.length = 0;
        return;
      }
      start(queue, ...following);
    });
    handler(req, res);
  };

  return (req, res) => {
    const socket = req.socket;
    let queue = queues.get(socket);
    if (queue === undefined) {
      const created: ConnectionQueue = { busy: false, waiting: [] };
      queues.set(socket, created);
      socket.once('close', () => {
        created.waiting.length = 0;
      });
      queue = created;
    }
    if (!queue.busy) return start(queue, req, res);
    if (socket.destroyed) return;
    if (queue.waiting.length >= maxWaiting) {
      queue.waiting.length = 0;
      socket.destroy();
      onOverrun(socket);
      return;
    }
    queue.waiting.push([req, res]);
  };
}
