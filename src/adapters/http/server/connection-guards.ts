import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { clientOfAddress } from '../client-address.js';
import { connectionRefusedResponse } from '../client-error.js';

/** How many expired bans may be kept before they are swept out (a ban is checked, not timed). */
const BANS_SWEPT_FROM = 10_000;

/**
 * How many refused connections may wait for their answer to be read at once; past it a refused one is
 * closed at once, without one: a flood of connections must not turn into a flood of lingering sockets.
 */
const MAX_ANSWERED_REFUSALS = 1_024;

/** How long a refused connection is kept after its answer, for the client to read it: then it is destroyed. */
const REFUSAL_LINGER_MS = 2_000;

/** What a client refused by a cap is told to wait before it tries again. */
const REFUSAL_RETRY_AFTER_SECONDS = 1;

/** The caps on the connections a server holds, and how long an idle one is kept from a newcomer. */
export interface ConnectionCapLimits {
  /** Past this many connections, the oldest silent or idle one is closed for a newcomer, else it is refused (503). */
  readonly maxConnections: number;
  /** The same per client address (429), once none of the address's own is idle. */
  readonly maxPerAddress: number;
  /**
   * How long a connection must have had no request in progress before a newcomer from its address, at
   * its cap, may close it to take its place.
   */
  readonly idleGraceMs: number;
  /** How long a connection may stay without sending its first byte; then it is closed, without an answer. */
  readonly firstByteTimeoutMs: number;
}

/** What the caps know of one open connection. */
interface Tracked {
  /** Requests read and not yet answered on it (pipelined ones waiting their turn included). */
  inProgress: number;
  /** When it last had none: its accept, or its last answer. */
  idleSinceMs: number;
  /** Whether it was closed to make room, and already uncounted. */
  evicted: boolean;
  /**
   * Counts the end of one of its requests: the 'close' listener of each of its responses, made once a
   * connection rather than once a request (a closure and a `once` wrapper each, in a PATCH's profile).
   */
  readonly answered: () => void;
}

/**
 * The connection caps of a server, counted per client (an IPv6 address by its /64, see
 * `clientOfAddress`). A new connection past `maxConnections` open ones first takes the place of the
 * oldest connection that has had no request in progress for `idleGraceMs` (one that never sent a
 * request, or a keep-alive connection its pool left idle), taken from the client holding the most
 * connections; only when none is idle is it answered 503, so that silent sockets from many addresses,
 * each under the per-address cap, cannot hold the server's connections against a client that sends.
 * From a client holding `maxPerAddress`, a new connection likewise first takes the place of the
 * client's own oldest idle one, and only when all of them are busy is it answered 429: as nginx's
 * `limit_conn` counts only connections with a request in progress, 256 silent sockets lock no client
 * out, and a pool's warm connections do not turn its burst into resets. A connection that has not sent
 * its first byte within `firstByteTimeoutMs` is closed without an answer (nginx's
 * `client_header_timeout`, before any header). Each refusal carries Retry-After and the Error body,
 * written as the connection is accepted and before Node's HTTP parser is attached, and the connection
 * is closed after it. While a client is banned (see `ban`), its connections are closed on arrival
 * without an answer: a ban must cost the server nothing. Behind a proxy every connection comes from the
 * proxy's address, so there the proxy caps each client instead (deploy/nginx), the cap is set at least
 * as high as the global one, and no ban is given.
 */
export class ConnectionCaps {
  private open = 0;
  private answeredRefusals = 0;
  private readonly byAddress = new Map<string, Map<Socket, Tracked>>();
  private readonly tracked = new WeakMap<Socket, Tracked>();
  private readonly bannedUntil = new Map<string, number>();

  constructor(
    server: Server,
    private readonly limits: ConnectionCapLimits,
    private readonly nowMs: () => number = () => performance.now(),
  ) {
    // Node's HTTP listener is run only for admitted connections: a refused one gets its answer raw, and
    // no parser, request or timeout of Node's is set up for it.
    const http = server.listeners('connection') as Array<(socket: Socket) => void>;
    server.removeAllListeners('connection');
    server.on('connection', (socket: Socket) => {
      if (!this.admit(socket)) return;
      for (const listener of http) listener.call(server, socket);
    });
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => this.started(req.socket, res));
  }

  /** Refuses `address` new connections for `ms` (none when 0); its open ones are the caller's to close. */
  ban(address: string, ms: number): void {
    if (ms <= 0) return;
    const client = clientOfAddress(address);
    if (this.bannedUntil.size >= BANS_SWEPT_FROM) {
      const now = this.nowMs();
      for (const [banned, until] of this.bannedUntil) if (until <= now) this.bannedUntil.delete(banned);
    }
    this.bannedUntil.set(client, this.nowMs() + ms);
  }

  private admit(socket: Socket): boolean {
    const address = clientOfAddress(socket.remoteAddress ?? '');
    if (this.banned(address)) {
      socket.destroy();
      return false;
    }
    if (this.open >= this.limits.maxConnections && !this.evictFromCrowdest()) return this.refuse(socket, 'server');
    let peers = this.byAddress.get(address);
    if (peers !== undefined && peers.size >= this.limits.maxPerAddress && !this.evictIdle(address, peers)) {
      return this.refuse(socket, 'address');
    }
    peers = this.byAddress.get(address);
    if (peers === undefined) {
      peers = new Map();
      this.byAddress.set(address, peers);
    }
    const tracked: Tracked = {
      inProgress: 0,
      idleSinceMs: this.nowMs(),
      evicted: false,
      answered: () => {
        tracked.inProgress -= 1;
        if (tracked.inProgress === 0) tracked.idleSinceMs = this.nowMs();
      },
    };
    peers.set(socket, tracked);
    this.tracked.set(socket, tracked);
    this.open += 1;
    const own = peers;
    const silent = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, this.limits.firstByteTimeoutMs);
    silent.unref();
    socket.once('close', () => {
      clearTimeout(silent);
      if (!tracked.evicted) this.forget(address, own, socket);
    });
    return true;
  }

  private forget(address: string, peers: Map<Socket, Tracked>, socket: Socket): void {
    this.open -= 1;
    peers.delete(socket);
    if (peers.size === 0 && this.byAddress.get(address) === peers) this.byAddress.delete(address);
  }

  /**
   * Closes the oldest idle connection of the client holding the most connections (or, if all of its are
   * busy, of the next most), and answers whether one was. Run only at the server's cap.
   */
  private evictFromCrowdest(): boolean {
    let crowdest: [string, Map<Socket, Tracked>] | undefined;
    for (const entry of this.byAddress)
      if (crowdest === undefined || entry[1].size > crowdest[1].size) crowdest = entry;
    if (crowdest === undefined) return false;
    if (this.evictIdle(...crowdest)) return true;
    const others = [...this.byAddress].filter(([address]) => address !== crowdest[0]);
    others.sort((a, b) => b[1].size - a[1].size);
    return others.some(([address, peers]) => this.evictIdle(address, peers));
  }

  /** Closes the oldest of `peers` idle for the grace, and answers whether one was. */
  private evictIdle(address: string, peers: Map<Socket, Tracked>): boolean {
    const idleBefore = this.nowMs() - this.limits.idleGraceMs;
    for (const [socket, tracked] of peers) {
      if (tracked.inProgress > 0 || tracked.idleSinceMs > idleBefore) continue;
      // Uncounted now, not at its 'close' (a tick later): the next newcomer of a burst must not pick it too.
      tracked.evicted = true;
      this.forget(address, peers, socket);
      socket.destroy();
      return true;
    }
    return false;
  }

  private refuse(socket: Socket, cap: 'address' | 'server'): false {
    if (this.answeredRefusals >= MAX_ANSWERED_REFUSALS) {
      socket.destroy();
      return false;
    }
    this.answeredRefusals += 1;
    socket.once('close', () => {
      this.answeredRefusals -= 1;
    });
    socket.on('error', () => {});
    // Whatever the client sends is read and dropped: unread bytes at the close would turn it into a reset,
    // and the client would never see the answer.
    socket.resume();
    endThenDestroy(socket, connectionRefusedResponse(cap, REFUSAL_RETRY_AFTER_SECONDS), REFUSAL_LINGER_MS);
    return false;
  }

  private started(socket: Socket, res: ServerResponse): void {
    const tracked = this.tracked.get(socket);
    if (tracked === undefined) return;
    tracked.inProgress += 1;
    // `on`, not `once`: a response closes once (Node guards its 'close'), and is dropped after.
    res.on('close', tracked.answered);
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
  /** The 'close' listener of each response it starts: one a connection, not a closure a request. */
  readonly answered: () => void;
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
    // connection goes first: either way the one request of this connection is over. `on`, not `once`:
    // Node emits a response's 'close' once.
    res.on('close', queue.answered);
    handler(req, res);
  };

  return (req, res) => {
    const socket = req.socket;
    let queue = queues.get(socket);
    if (queue === undefined) {
      const created: ConnectionQueue = {
        busy: false,
        waiting: [],
        answered: () => {
          created.busy = false;
          const following = created.waiting.shift();
          if (following === undefined) return;
          if (socket.destroyed) {
            created.waiting.length = 0;
            return;
          }
          start(created, ...following);
        },
      };
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
