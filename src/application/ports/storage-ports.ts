import type { ApiKeyStore } from './api-key-store.js';
import type { InventoryRepository } from './inventory-repository.js';
import type { OrderBook } from './order-book.js';
import type { PetCatalog } from './pet-catalog.js';
import type { StockChangeFeed } from './stock-change-feed.js';
import type { StockChangeLog } from './stock-change-log.js';
import type { WebhookStore } from './webhook-store.js';

/** A storage port's type, carried by its entry in STORAGE_PORTS for the compiler alone. */
interface PortOfType<T> {
  readonly type?: T;
}

const port = <T>(): PortOfType<T> => ({});

/**
 * The storage ports, by name: the one list of them. {@link StoragePorts} is the type made of it, the
 * core's ports (InventoryPorts) and the service's instrumentation of each port are derived from it.
 */
const STORAGE_PORTS = {
  /** Each pet's stock, its writes and reservations. */
  inventory: port<InventoryRepository>(),
  /** The history of each pet's stock (often the same object as `inventory`). */
  changes: port<StockChangeLog>(),
  /** Every pet's changes in the order they were made, from a position on. */
  feed: port<StockChangeFeed>(),
  /** The endpoints, the outbox of stock events and their deliveries. */
  webhooks: port<WebhookStore>(),
  /** The pets, added all at once or by a stream. */
  pets: port<PetCatalog>(),
  /** The orders, added all at once or by a stream. */
  orders: port<OrderBook>(),
  /** The API keys, by hash, with their audit trail. */
  keys: port<ApiKeyStore>(),
};

/** The name of a storage port, as its metrics and spans carry it. */
export type StoragePortName = keyof typeof STORAGE_PORTS;

/** Every storage port's name, in the order of STORAGE_PORTS. */
export const STORAGE_PORT_NAMES = Object.keys(STORAGE_PORTS) as readonly StoragePortName[];

/**
 * Every storage port of one store, sharing it: what each store opens (SQLite, PostgreSQL, memory) and
 * what the storage contract suites run over. A write through `inventory` shows in `changes`, `feed`
 * and `webhooks`.
 */
export type StoragePorts = {
  readonly [N in StoragePortName]: (typeof STORAGE_PORTS)[N] extends PortOfType<infer T> ? T : never;
};
