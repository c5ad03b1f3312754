import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { clientErrorResponse } from '../client-error.js';
import { deferContinue } from '../expect-continue.js';
import { ConnectionCaps, endThenDestroy, oneRequestAtATime } from './connection-guards.js';

/**
 * How long a client may take, and how many connections and requests it may hold at once. Node's
 * defaults (60 s for the headers, 300 s for a request, checked every 30 s, no cap on connections, every
 * pipelined request started at once) let one slow client hold hundreds of connections for over a
 * minute, one request for five, or make the server build answers it never reads.
 */
export interface ConnectionLimits {
  /** Until the request's headers have all arrived; then 408. */
  readonly headersTimeoutMs: number;
  /** Until the whole request, body included, has arrived; then 408. At least `headersTimeoutMs`. */
  readonly requestTimeoutMs: number;
  /** How long an idle keep-alive connection is kept for its next request. */
  readonly keepAliveTimeoutMs: number;
  /**
   * Past this many connections, a new one takes the place of the oldest idle one (see
   * `idleConnectionGraceMs`) of the client holding the most; when none is idle it is answered 503 with
   * Retry-After as soon as it is accepted, and closed.
   */
  readonly maxConnections: number;
  /**
   * The same per client address (the socket's: behind a proxy, the proxy's; an IPv6 one by its /64), answered 429: once the
   * address holds this many, a new connection takes the place of its oldest idle one (see
   * `idleConnectionGraceMs`), and is refused only when every one of them has a request in progress.
   */
  readonly maxConnectionsPerAddress: number;
  /**
   * How long a connection must have had no request in progress (since it was accepted or last answered)
   * before a newcomer from its address, at the address's cap, may close it to take its place.
   */
  readonly idleConnectionGraceMs: number;
  /**
   * How long a connection may stay without sending its first byte; then it is closed without an answer
   * (nginx's `client_header_timeout`), well before `headersTimeoutMs` cuts a request started slowly.
   */
  readonly firstByteTimeoutMs: number;
  /**
   * How many requests a connection may pipeline ahead of the one being answered; one more and the
   * connection is closed. They run one at a time, in order.
   */
  readonly maxPipelinedRequests: number;
  /**
   * How long a client address whose connection was closed for pipelining past `maxPipelinedRequests` is
   * refused new connections; 0: never. Each of its reconnections would cost the server a parse of every
   * request it sends at once (up to a 64 KB read of them), for which Node builds objects even once the
   * connection is closed. 0 behind a proxy, whose address it would ban.
   */
  readonly pipeliningBanMs: number;
  /**
   * How long a connection may carry no traffic at all while a request is being read or answered (a
   * client that stopped reading its answer); then it is closed.
   */
  readonly inactivityTimeoutMs: number;
}

/** The limits of a production server. */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 4_000,
  maxConnectionsPerAddress: 256,
  idleConnectionGraceMs: 1_000,
  firstByteTimeoutMs: 3_000,
  maxPipelinedRequests: 32,
  pipeliningBanMs: 10_000,
  inactivityTimeoutMs: 30_000,
};

/** How often a draining server closes the connections that have turned idle. */
const DRAIN_SWEEP_MS = 10;

/** How long a refused socket is kept after its answer, for the client to read it: then it is destroyed. */
const REFUSED_SOCKET_LINGER_MS = 2_000;

/** The listening server's lifecycle: readiness, and a drain that lets in-flight requests finish. */
export interface RunningServer {
  /** `http://host:port`, with the port actually bound. */
  readonly url: string;
  readonly server: Server;
  /**
   * Stops accepting connections and waits for in-flight requests, at most `drainTimeoutMs`, then
   * cuts what is left. Readiness turns false first, so a load balancer stops sending.
   */
  drain(): Promise<void>;
}

export interface ListenOptions {
  readonly host: string;
  readonly port: number;
  readonly drainTimeoutMs: number;
  readonly logger: Logger;
  /** Called with false when draining starts. */
  readonly setReady: (ready: boolean) => void;
  /** Replaces some of {@link DEFAULT_CONNECTION_LIMITS}. */
  readonly limits?: Partial<ConnectionLimits>;
}

/** Listens with `handler` and returns once the socket is bound. */
export async function listen(handler: RequestListener, options: ListenOptions): Promise<RunningServer> {
  let draining = false;
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...options.limits };
  const server = createServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // Node checks both timeouts only this often: every 30 s unless told, which a slow client adds to
    // its time. A quarter of the headers timeout (at most a second) keeps the overrun small.
    connectionsCheckingInterval: Math.max(1, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
    // The app refuses a missing Host itself, with its Error body instead of Node's bare 400.
    requireHostHeader: false,
  });
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  // With no listener for 'timeout', Node destroys a socket that has been silent this long.
  server.timeout = limits.inactivityTimeoutMs;
  // Not server.maxConnections: Node closes the connections past it without a word, before any listener.
  const addresses = new ConnectionCaps(server, {
    maxConnections: limits.maxConnections,
    maxPerAddress: limits.maxConnectionsPerAddress,
    idleGraceMs: limits.idleConnectionGraceMs,
    firstByteTimeoutMs: limits.firstByteTimeoutMs,
  });
  server.on(
    'request',
    oneRequestAtATime(handler, limits.maxPipelinedRequests, (socket) =>
      addresses.ban(socket.remoteAddress ?? '', limits.pipeliningBanMs),
    ),
  );
  deferContinue(server);
  server.prependListener('request', (_req, res) => {
    // While draining, each response tells its client to open a new connection (to another instance).
    if (draining) res.setHeader('Connection', 'close');
  });
  server.on('clientError', (error: Error & { code?: string }, socket) => {
    const response = socket.writable ? clientErrorResponse(error) : undefined;
    if (response === undefined) socket.destroy();
    else endThenDestroy(socket, response, REFUSED_SOCKET_LINGER_MS);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${host}:${address.port}`,
    server,
    drain: () => {
      draining = true;
      options.setReady(false);
      return new Promise<void>((resolve) => {
        const cut = setTimeout(() => {
          options.logger.warn({ timeoutMs: options.drainTimeoutMs }, 'drain timed out; closing remaining connections');
          server.closeAllConnections();
        }, options.drainTimeoutMs);
        cut.unref();
        // A keep-alive connection whose response was under way when draining began turns idle only once
        // that response is done: it is closed by the next sweep, rather than kept for its keep-alive
        // timeout. A sweep while draining costs less than a listener on every response for the rare drain.
        const sweep = setInterval(() => server.closeIdleConnections(), DRAIN_SWEEP_MS);
        sweep.unref();
        // close() stops accepting and closes idle keep-alive connections; busy ones close after their response.
        server.close(() => {
          clearTimeout(cut);
          clearInterval(sweep);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}
