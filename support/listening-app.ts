import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { pino } from 'pino';
import { createHttpApp, type HttpAppOptions } from '../src/adapters/http/create-http-app.js';
import { docsPages } from '../src/adapters/http/docs-routes.js';
import { type ConnectionLimits, listen, type RunningServer } from '../src/adapters/http/server/http-server.js';
import { createMemoryAdapters } from '../src/adapters/memory/memory-adapters.js';
import { NodeKeyCrypto } from '../src/adapters/system/node-key-crypto.js';
import { createInventoryCore, type InventoryCore } from '../src/application/inventory-core.js';
import { ManualClock } from '../src/testing/index.js';

/** The app over memory storage, served by the service's own `listen`, as `npm start` serves it. */
export interface ListeningApp {
  readonly running: RunningServer;
  readonly port: number;
  readonly core: InventoryCore;
  readonly clock: ManualClock;
  /** Issues a key on an unlimited enterprise plan and answers it (without the scheme word). */
  key(): Promise<string>;
}

/** What a test may change: some of the production connection limits, and some of the app's options. */
export interface ListeningAppOptions extends Partial<HttpAppOptions> {
  readonly limits?: Partial<ConnectionLimits>;
}

/** Starts the app on a free port. */
export async function startListeningApp(options: ListeningAppOptions = {}): Promise<ListeningApp> {
  const { limits, ...appOptions } = options;
  const clock = new ManualClock();
  const crypto = new NodeKeyCrypto();
  const core = createInventoryCore({ ...createMemoryAdapters(clock), clock, keyGenerator: crypto, keyHasher: crypto });
  const app = createHttpApp({
    ...core,
    clock,
    // As the server serves it: with the API reference page.
    pages: [docsPages],
    readiness: () => true,
    options: {
      sunsetAt: new Date('2027-06-30T00:00:00Z'),
      servers: { production: 'http://127.0.0.1/v1', staging: 'http://127.0.0.1/v1' },
      trustProxy: false,
      ...appOptions,
    },
  });
  const running = await listen(app.callback(), {
    host: '127.0.0.1',
    port: 0,
    drainTimeoutMs: 1_000,
    logger: pino({ level: 'silent' }),
    setReady: () => {},
    ...(limits === undefined ? {} : { limits }),
  });
  return {
    running,
    port: Number(new URL(running.url).port),
    core,
    clock,
    key: async () => {
      const issued = await core.issueApiKey.execute({
        plan: 'enterprise',
        limits: { perMinute: 1_000_000, perDay: 10_000_000 },
      });
      return issued.key;
    },
  };
}

/** A connection to `port` on 127.0.0.1, once connected. */
export async function openSocket(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  return socket;
}

/** Sends raw bytes and resolves to everything the server wrote before the connection closed. */
export async function exchange(port: number, request: string): Promise<string> {
  const socket = await openSocket(port);
  let out = '';
  socket.setEncoding('utf8').on('data', (t: string) => {
    out += t;
  });
  socket.on('error', () => {});
  socket.end(request);
  await once(socket, 'close');
  return out;
}

/** The head of a raw response: status and headers (names lower-cased). */
export interface RawHead {
  readonly status: number;
  readonly headers: ReadonlyMap<string, string>;
  readonly body: string;
}

/** Parses the first response in `raw` that is not 1xx. */
export function finalResponse(raw: string): RawHead {
  let rest = raw;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`no complete response in ${JSON.stringify(raw.slice(0, 300))}`);
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n');
    const status = Number(statusLine.split(' ')[1]);
    rest = rest.slice(end + 4);
    if (status >= 200) {
      const headers = new Map(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      return { status, headers, body: rest };
    }
  }
}
