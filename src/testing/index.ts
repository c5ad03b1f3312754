/**
 * `petstore-inventory/testing`: the contract suite of every port, as the project's own adapters run
 * them, for the authors of other adapters; with the clock and the object mothers they use. The suites
 * take the test runner's `{ describe, it, beforeEach, afterEach }` (node:test's or vitest's) and assert
 * through `node:assert/strict`. Each test states one rule a store must keep; every rule is listed in
 * docs/store-rules.md (made from the suites), and a failing test's message names its rule first:
 * `rule broken: <the rule> (<the suite>); saw: <what the assertion saw>`.
 *
 * @packageDocumentation
 */
export { describeApiKeyStoreContract } from './api-key-store.contract.js';
export { describeFeedHeadContract } from './feed-head.contract.js';
export { describeInventoryFiltersContract, type FiltersFixture } from './inventory-filters.contract.js';
export { describeInventoryRepositoryContract } from './inventory-repository.contract.js';
export { ManualClock } from './manual-clock.js';
export {
  aCommand,
  adjustBy,
  aKeyRecord,
  anOrder,
  aPet,
  COMMAND_AT_MS,
  INT64_MAX,
  INT64_MIN,
  setTo,
} from './mothers.js';
export { describeNamedInventoryContract } from './named-inventory.contract.js';
export { describeOrderBookContract } from './order-book.contract.js';
export { describePetCatalogContract } from './pet-catalog.contract.js';
export { describeRateLimiterContract, type LimiterFixture, type MakeLimiter } from './rate-limiter.contract.js';
export { describeReservationHoldsContract } from './reservation-holds.contract.js';
export { describeStockChangeFeedContract } from './stock-change-feed.contract.js';
export { describeStorageContract } from './storage-contract.js';
export {
  drain,
  failingStream,
  type MakeStorage,
  pausedStream,
  type StorageFixture,
  streamOf,
} from './storage-fixture.js';
export type { TestRunner } from './test-runner.js';
export { describeWebhookStoreContract } from './webhook-store.contract.js';
