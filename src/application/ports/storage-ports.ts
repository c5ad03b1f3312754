import type { ApiKeyStore } from './api-key-store.js';
import type { InventoryRepository } from './inventory-repository.js';
import type { OrderBook } from './order-book.js';
import type { PetCatalog } from './pet-catalog.js';
import type { StockChangeFeed } from './stock-change-feed.js';
import type { StockChangeLog } from './stock-change-log.js';
import type { WebhookStore } from './webhook-store.js';

/**
 * Every storage port of one store, sharing it: what each store opens (SQLite, PostgreSQL, memory) and
 * what the storage contract suites run over. A write through `inventory` shows in `changes`, `feed`
 * and `webhooks`.
 */
export interface StoragePorts {
  /** Each pet's stock, its writes and reservations. */
  readonly inventory: InventoryRepository;
  /** The history of each pet's stock (often the same object as `inventory`). */
  readonly changes: StockChangeLog;
  /** Every pet's changes in the order they were made, from a position on. */
  readonly feed: StockChangeFeed;
  /** The endpoints, the outbox of stock events and their deliveries. */
  readonly webhooks: WebhookStore;
  /** The pets, added all at once or by a stream. */
  readonly pets: PetCatalog;
  /** The orders, added all at once or by a stream. */
  readonly orders: OrderBook;
  /** The API keys, by hash, with their audit trail. */
  readonly keys: ApiKeyStore;
}
