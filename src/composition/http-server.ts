import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { clientErrorResponse } from '../adapters/http/client-error.js';
import { deferContinue } from '../adapters/http/expect-continue.js';

/**
 * How long a client may take, and how many connections may be open at once. Node's defaults (60 s for
 * the headers, 300 s for a request, checked every 30 s, no cap on connections) let one slow client hold
 * hundreds of connections for over a minute, or one request for five.
 */
export interface ConnectionLimits {
  /** Until the request's headers have all arrived; then 408. */
  readonly headersTimeoutMs: number;
  /** Until the whole request, body included, has arrived; then 408. At least `headersTimeoutMs`. */
  readonly requestTimeoutMs: number;
  /** How long an idle keep-alive connection is kept for its next request. */
  readonly keepAliveTimeoutMs: number;
  /** Connections past this many are closed as soon as they are accepted, without an answer. */
  readonly maxConnections: number;
}

/** The limits of a production server. */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 4_000,
};

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
export async function listen(
  handler: Parameters<typeof createServer>[1],
  options: ListenOptions,
): Promise<RunningServer> {
  let draining = false;
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...options.limits };
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // Node checks both timeouts only this often: every 30 s unless told, which a slow client adds to
      // its time. A quarter of the headers timeout (at most a second) keeps the overrun small.
      connectionsCheckingInterval: Math.max(1, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
      // The app refuses a missing Host itself, with its Error body instead of Node's bare 400.
      requireHostHeader: false,
    },
    handler,
  );
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  deferContinue(server);
  server.prependListener('request', (_req, res) => {
    // While draining, each response tells its client to open a new connection (to another instance).
    if (draining) res.setHeader('Connection', 'close');
    // A keep-alive connection whose response was under way when draining began turns idle only once
    // that response is done; close it then, rather than wait for its keep-alive timeout.
    res.once('finish', () => {
      if (draining) setImmediate(() => server.closeIdleConnections());
    });
  });
  server.on('clientError', (error: Error & { code?: string }, socket) => {
    const response = socket.writable ? clientErrorResponse(error) : undefined;
    if (response === undefined) socket.destroy();
    else socket.end(response);
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
        // close() stops accepting and closes idle keep-alive connections; busy ones close after their response.
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}
