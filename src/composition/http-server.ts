import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { clientErrorResponse } from '../adapters/http/client-error.js';

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
}

/** Listens with `handler` and returns once the socket is bound. */
export async function listen(
  handler: Parameters<typeof createServer>[1],
  options: ListenOptions,
): Promise<RunningServer> {
  let draining = false;
  const server = createServer(handler);
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
