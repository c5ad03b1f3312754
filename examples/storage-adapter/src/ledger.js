// @ts-check
/**
 * The state of a ledger store: every port of it reads and writes this one object. JavaScript runs a
 * synchronous stretch of code whole, so each write below reads, decides and applies without an `await`
 * in between, and is atomic as a transaction would be.
 *
 * @import { Pet, PetId, Quantity, Reservation, StockChange, Order, ApiKeyRecord, KeyAuditEntry, StoredClaim } from 'petstore-inventory'
 */

/**
 * One pet, its stock, and the version of its stock (1 when added, one more per write or lapsed hold).
 * @typedef {{ pet: Pet, quantity: Quantity, version: number }} Row
 */

/**
 * Breaks the store on purpose, to show that the contract suites catch it (test/broken-ledger.test.js):
 * `list-order` lists each chunk in the order its pets were added; `no-change-record` applies stock
 * writes without recording their changes.
 */
export const broken = process.env.BREAK ?? '';

export class Ledger {
  /** @type {Map<PetId, Row>} */
  rows = new Map();
  /** @type {PetId[] | undefined} the ids in ascending order; dropped when a pet is added, sorted again when next read */
  sorted = undefined;
  /** @type {StockChange[]} every change, oldest first; a change's id is its position plus one */
  changes = [];
  /** @type {Map<string, Reservation>} every reservation, by id */
  reservations = new Map();
  /** @type {Map<PetId, Set<string>>} the ids of each pet's reservations stored as held */
  held = new Map();
  /** @type {Map<string, string>} the key id (the reserving command's actor) of each reservation, by its id */
  holders = new Map();
  /** @type {Map<string, StoredClaim>} stored outcomes of keyed writes, by scope and key */
  claims = new Map();
  /** @type {Map<bigint, Order>} */
  orders = new Map();
  /** @type {Map<string, { record: ApiKeyRecord, hash: string }>} */
  keys = new Map();
  /** @type {Map<string, string>} key ids by hash */
  keyIds = new Map();
  /** @type {KeyAuditEntry[]} oldest first; an entry's seq is its position plus one */
  audit = [];
  /** Counts the writes to pets and stock; with `epoch`, the inventory's stamp. */
  writes = 0;
  /** Random per store, so that a new store never repeats an old one's stamps. */
  epoch = globalThis.crypto.randomUUID();

  /** The ids in ascending order. */
  ids() {
    if (this.sorted === undefined) {
      const ids = [...this.rows.keys()];
      this.sorted = ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    }
    return this.sorted;
  }

  /**
   * The position in `ids()` of the first id above `after`.
   * @param {PetId | undefined} after
   */
  firstAfter(after) {
    const ids = this.ids();
    if (after === undefined) return 0;
    let lo = 0;
    let hi = ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (/** @type {PetId} */ (ids[mid]) <= after) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** @param {Row} row */
  addRow(row) {
    this.rows.set(row.pet.id, row);
    this.sorted = undefined;
  }
}
