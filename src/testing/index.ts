export { describeApiKeyStoreContract } from './api-key-store.contract.js';
export { describeInventoryRepositoryContract } from './inventory-repository.contract.js';
export { ManualClock } from './manual-clock.js';
export { aKeyRecord, anOrder, aPet, INT64_MAX, INT64_MIN } from './mothers.js';
export { describeOrderBookContract } from './order-book.contract.js';
export { describePetCatalogContract } from './pet-catalog.contract.js';
export { describeRateLimiterContract, type LimiterFixture, type MakeLimiter } from './rate-limiter.contract.js';
export { describeReservationsContract } from './reservations.contract.js';
export { describeStockChangeFeedContract } from './stock-change-feed.contract.js';
export { aCommand, adjustBy, describeStockCommandsContract, setTo } from './stock-commands.contract.js';
export {
  drain,
  failingStream,
  type MakeStorage,
  pausedStream,
  type StorageFixture,
  streamOf,
} from './storage-fixture.js';
export { describeWebhookStoreContract } from './webhook-store.contract.js';
