// @ts-check
import { Ledger } from './ledger.js';
import { LedgerOrders, LedgerPets } from './ledger-catalog.js';
import { LedgerInventory } from './ledger-inventory.js';
import { LedgerKeys } from './ledger-keys.js';

/** @import { Clock } from 'petstore-inventory' */

/**
 * A new, empty ledger store: the storage ports `createInventoryCore` takes, over one state, so that a
 * stock write shows at once in the history, the feed and the export.
 * @param {Clock} clock the time what is reserved is read at
 */
export function openLedgerStorage(clock) {
  const ledger = new Ledger();
  const inventory = new LedgerInventory(ledger, clock);
  return {
    inventory,
    changes: inventory,
    feed: inventory,
    pets: new LedgerPets(ledger),
    orders: new LedgerOrders(ledger),
    keys: new LedgerKeys(ledger),
    close: async () => {},
  };
}
