import type { ContainerModuleLoadOptions, ServiceIdentifier } from 'inversify';

/** A service identifier that remembers the type bound to it, so `resolve` needs no cast at call sites. */
export type Token<T> = symbol & { readonly __bound?: T };

/** Makes a new typed token. */
export const token = <T>(description: string): Token<T> => Symbol(description) as Token<T>;

/** Narrows a typed token to what inversify's API takes. */
export const id = <T>(t: Token<T>): ServiceIdentifier<T> => t;

/** The types a list of tokens stands for. */
export type Resolved<D extends readonly Token<unknown>[]> = { [K in keyof D]: D[K] extends Token<infer U> ? U : never };

/**
 * Binds `token` to a singleton made by `factory` from the values of `deps`. Unlike a bare
 * `toResolvedValue`, the factory's parameters are checked against the tokens' types.
 */
export function bindResolved<T, const D extends readonly Token<unknown>[]>(
  { bind }: ContainerModuleLoadOptions,
  token: Token<T>,
  deps: D,
  factory: (...values: Resolved<D>) => T,
): void {
  bind(id(token))
    .toResolvedValue((...values: unknown[]) => factory(...(values as Resolved<D>)), deps.map(id))
    .inSingletonScope();
}

import type { Logger } from 'pino';
import type { CountableLimiter, LimiterRole } from '../adapters/prometheus/counted-rate-limiter.js';
import type { FailoverCounters } from '../adapters/prometheus/service-metrics.js';
import type { InventoryCore } from '../application/inventory-core.js';
import type { ApiKeyStore } from '../application/ports/api-key-store.js';
import type { Clock } from '../application/ports/clock.js';
import type { InventoryRepository } from '../application/ports/inventory-repository.js';
import type { KeyGenerator, KeyHasher } from '../application/ports/key-crypto.js';
import type { OrderBook } from '../application/ports/order-book.js';
import type { PetCatalog } from '../application/ports/pet-catalog.js';
import type { RateLimiter } from '../application/ports/rate-limiter.js';
import type { StockChangeFeed } from '../application/ports/stock-change-feed.js';
import type { StockChangeLog } from '../application/ports/stock-change-log.js';
import type { WebhookStore } from '../application/ports/webhook-store.js';
import type { WebhookAdmin } from '../application/webhook-core.js';
import type { BanPolicy } from '../domain/ban.js';
import type { Config } from './config.js';

/** What /readyz asks of the parts that can be down (a store, Redis). */
export interface HealthCheck {
  readonly name: string;
  healthy(): boolean;
  /** Whether the process is unready while this check fails; otherwise it is only reported. */
  readonly critical: boolean;
  /**
   * Resolves true once the part is up (a connection opened at start), false when `timeoutMs` passed
   * first. The server waits for it before it accepts, so its first requests are served as the rest are.
   */
  whenUp?(timeoutMs: number): Promise<boolean>;
}

/** The storage ports, by the name their metrics and spans carry. */
export type StoragePortName = 'inventory' | 'changes' | 'feed' | 'webhooks' | 'pets' | 'orders' | 'keys';

/**
 * What the modules put around the adapters they bind: metrics when they are on, spans when tracing
 * runs, nothing otherwise (see instrumentationOf). A module calls it where it binds a port, so that the
 * binding says what the core is given.
 */
export interface Instrumentation {
  /** A storage port as the core gets it: each call timed by port and method, and a span `<name>.<method>`. */
  storagePort<T extends object>(port: T, name: StoragePortName): T;
  /** A limiter that decides, its decisions counted under `role`. */
  limiter(limiter: CountableLimiter, role: LimiterRole): CountableLimiter;
  /** The rate limiter as the core gets it: each call a span `rate_limiter.<method>`. */
  rateLimiter<T extends object>(limiter: T): T;
  /** Exports a failover limiter's counters of its outages, read at each scrape. Call at most once. */
  failover(status: () => FailoverCounters): void;
  /** Told the number of stock updates each SQLite group commit carried. */
  groupCommit(updates: number): void;
}

export const TOKENS = {
  config: token<Config>('Config'),
  logger: token<Logger>('Logger'),
  clock: token<Clock>('Clock'),
  banPolicy: token<BanPolicy>('BanPolicy'),
  keyGenerator: token<KeyGenerator>('KeyGenerator'),
  keyHasher: token<KeyHasher>('KeyHasher'),
  inventory: token<InventoryRepository>('InventoryRepository'),
  changes: token<StockChangeLog>('StockChangeLog'),
  feed: token<StockChangeFeed>('StockChangeFeed'),
  webhooks: token<WebhookStore>('WebhookStore'),
  webhookAdmin: token<WebhookAdmin>('WebhookAdmin'),
  pets: token<PetCatalog>('PetCatalog'),
  orders: token<OrderBook>('OrderBook'),
  keys: token<ApiKeyStore>('ApiKeyStore'),
  limiter: token<RateLimiter>('RateLimiter'),
  core: token<InventoryCore>('InventoryCore'),
  storageIsEmpty: token<() => boolean | Promise<boolean>>('StorageIsEmpty'),
  instrumentation: token<Instrumentation>('Instrumentation'),
} as const;
