import { describeApiKeyStoreContract } from './api-key-store.contract.js';
import { describeDecisionAppliedContract } from './decision-applied.contract.js';
import { describeFeedHeadContract } from './feed-head.contract.js';
import { describeInventoryFiltersContract } from './inventory-filters.contract.js';
import { describeInventoryRepositoryContract } from './inventory-repository.contract.js';
import { describeNamedInventoryContract } from './named-inventory.contract.js';
import { describeOrderBookContract } from './order-book.contract.js';
import { describePetCatalogContract } from './pet-catalog.contract.js';
import { describeReservationHoldsContract } from './reservation-holds.contract.js';
import { describeStockChangeFeedContract } from './stock-change-feed.contract.js';
import type { MakeStorage } from './storage-fixture.js';
import type { TestRunner } from './test-runner.js';
import { describeWebhookStoreContract } from './webhook-store.contract.js';

/**
 * Every storage port's contract over one adapter: InventoryRepository (with StockChangeLog, stock
 * commands, reservations, a key's holds, the list's filters and its named pages), PetCatalog, StockChangeFeed (and its head), WebhookStore, OrderBook and ApiKeyStore, each
 * test on a fresh store from `make`. An adapter that implements only some ports runs their suites alone.
 *
 * @example
 * ```ts
 * import { afterEach, beforeEach, describe, it } from 'node:test';
 * import { describeStorageContract } from 'petstore-inventory/testing';
 *
 * describeStorageContract('mine', makeMine, { describe, it, beforeEach, afterEach });
 * ```
 *
 * @param adapter - the name the suites are reported under
 * @param make - a fresh, empty store for each test
 * @param runner - the test runner's `{ describe, it, beforeEach, afterEach }` (node:test's or vitest's)
 */
export function describeStorageContract(adapter: string, make: MakeStorage, runner: TestRunner): void {
  describeInventoryRepositoryContract(adapter, make, runner);
  describeInventoryFiltersContract(adapter, make, runner);
  describeDecisionAppliedContract(adapter, make, runner);
  describeNamedInventoryContract(adapter, make, runner);
  describeReservationHoldsContract(adapter, make, runner);
  describePetCatalogContract(adapter, make, runner);
  describeStockChangeFeedContract(adapter, make, runner);
  describeFeedHeadContract(adapter, make, runner);
  describeWebhookStoreContract(adapter, make, runner);
  describeOrderBookContract(adapter, make, runner);
  describeApiKeyStoreContract(adapter, make, runner);
}
