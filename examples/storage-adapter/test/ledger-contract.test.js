// @ts-check
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  describeApiKeyStoreContract,
  describeInventoryFiltersContract,
  describeInventoryRepositoryContract,
  describeOrderBookContract,
  describePetCatalogContract,
  describeReservationHoldsContract,
  describeStockChangeFeedContract,
  ManualClock,
} from 'petstore-inventory/testing';
import { openLedgerStorage } from '../src/index.js';

/** @import { MakeStorage, StorageFixture } from 'petstore-inventory/testing' */

const runner = { describe, it, beforeEach, afterEach };

/**
 * A fresh ledger for each test. The ledger keeps no webhook outbox (a service that delivers stock events
 * needs a store that does), so the fixture has no `webhooks`, and the WebhookStore suite is not run.
 * @type {MakeStorage}
 */
const makeLedger = async () => {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0));
  return /** @type {StorageFixture} */ (/** @type {unknown} */ ({ ...openLedgerStorage(clock), clock }));
};

describeInventoryRepositoryContract('ledger', makeLedger, runner);
describeInventoryFiltersContract('ledger', makeLedger, runner);
describeReservationHoldsContract('ledger', makeLedger, runner);
describePetCatalogContract('ledger', makeLedger, runner);
describeStockChangeFeedContract('ledger', makeLedger, runner);
describeOrderBookContract('ledger', makeLedger, runner);
describeApiKeyStoreContract('ledger', makeLedger, runner);
