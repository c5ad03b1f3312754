import type { Clock } from '../../application/ports/clock.js';
import type { BanPolicy } from '../../domain/ban.js';
import { wallClock } from '../web/wall-clock.js';
import { MemoryApiKeyStore } from './memory-api-key-store.js';
import { MemoryInventoryRepository } from './memory-inventory-repository.js';
import { MemoryOrderBook } from './memory-order-book.js';
import { MemoryPetCatalog } from './memory-pet-catalog.js';
import { MemoryRateLimiter } from './memory-rate-limiter.js';
import { MemoryStockChangeFeed } from './memory-stock-change-feed.js';
import { MemoryStore } from './memory-store.js';
import { MemoryWebhookStore } from './memory-webhook-store.js';

/** Every storage port in process memory, sharing one store; `clock` is the time reservations are read at. */
export function createMemoryStorage(clock: Clock = wallClock) {
  const store = new MemoryStore();
  const inventory = new MemoryInventoryRepository(store, clock);
  return {
    inventory,
    changes: inventory,
    feed: new MemoryStockChangeFeed(store),
    webhooks: new MemoryWebhookStore(store),
    pets: new MemoryPetCatalog(store),
    orders: new MemoryOrderBook(store),
    keys: new MemoryApiKeyStore(store),
    /** True when no pet and no key is stored: a development start may seed it. */
    isEmpty: (): boolean => store.pets.size === 0 && store.keys.size === 0,
  };
}

/** Every storage port and the limiter in process memory, sharing one store. */
export function createMemoryAdapters(clock: Clock, options: { readonly banPolicy?: BanPolicy } = {}) {
  return { ...createMemoryStorage(clock), limiter: new MemoryRateLimiter(clock, options) };
}
