import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse } from 'lossless-json';
import { pino } from 'pino';
import { KeyUseRecorder } from '../../../src/adapters/api-keys/key-use-recorder.js';
import { createHttpApp, type HttpAppOptions } from '../../../src/adapters/http/create-http-app.js';
import { docsPages } from '../../../src/adapters/http/docs-routes.js';
import type { HttpPages } from '../../../src/adapters/http/http-pages.js';
import type { HttpMetrics } from '../../../src/adapters/http/request-metrics.js';
import { koaListener } from '../../../src/adapters/http/server/koa-listener.js';
import { createMemoryAdapters } from '../../../src/adapters/memory/memory-adapters.js';
import { NodeKeyCrypto } from '../../../src/adapters/system/node-key-crypto.js';
import {
  createInventoryCore,
  type InventoryCore,
  type InventoryPorts,
} from '../../../src/application/inventory-core.js';
import { type InventoryRepository, listsColumns } from '../../../src/application/ports/inventory-repository.js';
import type { NewPet } from '../../../src/application/ports/pet-catalog.js';
import type { RateLimiter } from '../../../src/application/ports/rate-limiter.js';
import type { StockChangeLog } from '../../../src/application/ports/stock-change-log.js';
import type { Scope } from '../../../src/domain/api-key.js';
import type { Order } from '../../../src/domain/order.js';
import type { Plan, RateLimitPolicy } from '../../../src/domain/plan.js';
import { ManualClock } from '../../../src/testing/index.js';
import { expectMatchesDocument, type ReceivedResponse, TEST_SERVERS } from './openapi-contract.js';

/** When getPetById goes in the test apps: half a year after the clock's start. */
export const TEST_SUNSET_AT = new Date('2026-07-01T00:00:00Z');

/** A response, its body read whole and already checked against the OpenAPI document. */
export interface ApiResponse extends ReceivedResponse {
  /** The body parsed, integers beyond 2^53 as bigints, so that ids can be compared exactly. */
  exact(): unknown;
}

/** The storage ports a fixture serves. */
export type FixtureStorage = Pick<InventoryPorts, 'inventory' | 'changes' | 'feed' | 'pets' | 'orders' | 'keys'>;

export interface FixtureOptions extends Partial<HttpAppOptions> {
  /** Storage to serve instead of a fresh memory store; the test that made it closes it. */
  readonly storage?: FixtureStorage;
  /** Wraps the inventory, to make the store fail, slow or counted on purpose. */
  readonly inventory?: (memory: InventoryRepository) => InventoryRepository;
  /** Wraps the memory limiter, to make it fail on purpose. */
  readonly limiter?: (memory: RateLimiter) => RateLimiter;
  /** Request metrics the app reports to; none when absent. */
  readonly metrics?: HttpMetrics;
  /** The pages served beside the API; the docs page when absent. */
  readonly pages?: readonly HttpPages[];
}

/** Issues a key as the admin CLI would, with the options given; answers the bearer header and the key's id. */
export interface KeyOptions {
  readonly plan?: Plan;
  readonly scopes?: readonly Scope[];
  readonly expiresInMs?: number;
}

/** A real server on an ephemeral port over memory storage (unless given other), a manual clock and a log. */
export interface HttpFixture {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly clock: ManualClock;
  readonly core: InventoryCore;
  /** The stock changes recorded by updates. */
  readonly changes: StockChangeLog;
  /** The JSON log lines written so far. */
  readonly logLines: readonly Record<string, unknown>[];
  /** What /readyz reports. */
  ready: boolean;
  /** Issues a key on `plan` (enterprise takes `limits`) and answers the bearer header for it. */
  bearer(plan?: Plan, limits?: RateLimitPolicy): Promise<string>;
  /** Issues a key with scopes or an expiry; answers its bearer header and id. */
  issue(options?: KeyOptions): Promise<{ readonly authorization: string; readonly id: string }>;
  /** Where the app notes the uses of keys; flush it to write them. */
  readonly keyUses: KeyUseRecorder;
  addPets(...pets: NewPet[]): Promise<void>;
  addOrders(...orders: Order[]): Promise<void>;
  /** Sends a request with fetch, reads the whole body and checks the response against the document. */
  call(path: string, init?: RequestInit): Promise<ApiResponse>;
  close(): Promise<void>;
}

/** A JSON number as a number, or as a bigint when it is an integer a number would round. */
const exactNumber = (text: string): number | bigint => {
  const value = Number(text);
  return /^-?[0-9]+$/.test(text) && !Number.isSafeInteger(value) ? BigInt(text) : value;
};

/** Starts a fixture; close it after the test. */
export async function startHttpFixture(options: FixtureOptions = {}): Promise<HttpFixture> {
  const clock = new ManualClock();
  const memory = createMemoryAdapters(clock);
  const storage: FixtureStorage = options.storage ?? memory;
  const crypto = new NodeKeyCrypto();
  const core = createInventoryCore(
    {
      inventory: options.inventory?.(storage.inventory) ?? storage.inventory,
      changes: storage.changes,
      feed: storage.feed,
      pets: storage.pets,
      orders: storage.orders,
      keys: storage.keys,
      limiter: options.limiter?.(memory.limiter) ?? memory.limiter,
      clock,
      keyGenerator: crypto,
      keyHasher: crypto,
    },
    options.holdLimits === undefined ? {} : { holdLimits: options.holdLimits },
  );
  const keyUses = new KeyUseRecorder(storage.keys, clock);
  const logLines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => logLines.push(JSON.parse(line)) });
  const state = { ready: true };
  const app = createHttpApp({
    ...core,
    clock,
    logger,
    keyUses,
    // A store that lists by columns (SQLite) is used as the server uses it, unless wrapped.
    inventoryColumns:
      options.inventory === undefined && listsColumns(storage.inventory) ? storage.inventory : undefined,
    // As the server serves it: with the API reference page.
    pages: options.pages ?? [docsPages],
    readiness: () => state.ready,
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    options: {
      sunsetAt: options.sunsetAt ?? TEST_SUNSET_AT,
      servers: TEST_SERVERS,
      trustProxy: options.trustProxy ?? false,
      ...(options.deprecatedAt === undefined ? {} : { deprecatedAt: options.deprecatedAt }),
      ...(options.bodyLimitBytes === undefined ? {} : { bodyLimitBytes: options.bodyLimitBytes }),
      ...(options.requireIfMatch === undefined ? {} : { requireIfMatch: options.requireIfMatch }),
      ...(options.holdLimits === undefined ? {} : { holdLimits: options.holdLimits }),
    },
  });
  // Served as the service serves it (see koaListener), so every test of tests/http goes through it.
  const server: Server = createServer(koaListener(app));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    clock,
    core,
    keyUses,
    changes: storage.changes,
    logLines,
    get ready() {
      return state.ready;
    },
    set ready(value: boolean) {
      state.ready = value;
    },
    async bearer(plan: Plan = 'free', limits?: RateLimitPolicy) {
      const { key } = await core.issueApiKey.execute(limits === undefined ? { plan } : { plan, limits });
      return `Bearer ${key}`;
    },
    async issue({ plan = 'free', scopes, expiresInMs } = {}) {
      const { key, record } = await core.issueApiKey.execute({
        plan,
        ...(scopes === undefined ? {} : { scopes }),
        ...(expiresInMs === undefined ? {} : { expires: { inMs: expiresInMs } }),
      });
      return { authorization: `Bearer ${key}`, id: record.id };
    },
    async addPets(...pets) {
      // Through the store's port, not AddPets: a test may seed a state the opening rule refuses (a sold
      // pet with stock) to see how the list treats it.
      const added = await storage.pets.addAll(pets);
      if (!added.ok) throw new Error(added.error.message);
    },
    async addOrders(...orders) {
      const added = await core.importOrders.execute(orders);
      if (!added.ok) throw new Error(added.error.message);
    },
    async call(path, init = {}) {
      const response = await fetch(`${origin}${path}`, init);
      const received: ReceivedResponse = {
        method: (init.method ?? 'GET').toUpperCase(),
        path: new URL(`${origin}${path}`).pathname,
        status: response.status,
        headers: response.headers,
        text: await response.text(),
      };
      expectMatchesDocument(received);
      return { ...received, exact: () => parse(received.text, null, exactNumber) };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** A promise a test settles when it chooses: to hold a store or a limiter at a point, or to await one. */
export interface Gate {
  readonly passed: Promise<void>;
  open(): void;
}

export function gate(): Gate {
  let open: () => void = () => {};
  const passed = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { passed, open: () => open() };
}

/** A well-formed key that no test ever issues. */
export const UNKNOWN_KEY = `psk_${'A'.repeat(40)}`;

/** Headers of a JSON request with a key. */
export const jsonWith = (authorization: string): Record<string, string> => ({
  authorization,
  'content-type': 'application/json',
});
