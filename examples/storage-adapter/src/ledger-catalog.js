// @ts-check
import { FIRST_VERSION, fail, ok, pet } from 'petstore-inventory';

/**
 * @import { PetCatalog, OrderBook, NewPet, StockedPet, PetId, Order, Result, DuplicatePet, OrderRefusal } from 'petstore-inventory'
 * @import { Ledger } from './ledger.js'
 */

const EXPORT_CHUNK = 1_000;

/**
 * Reads every batch before it writes: a refusal, or a stream that throws, leaves the ledger as it was,
 * and nothing of a stream shows before it ends.
 * @template T
 * @param {AsyncIterable<readonly T[]> | Iterable<readonly T[]>} batches
 * @param {(item: T) => bigint} idOf
 * @param {string} noun
 * @param {string} code
 * @returns {Promise<Result<Map<bigint, T>, any>>}
 */
async function readAll(batches, idOf, noun, code) {
  /** @type {Map<bigint, T>} */
  const all = new Map();
  for await (const batch of batches) {
    for (const item of batch) {
      const id = idOf(item);
      if (all.has(id)) return fail({ code, message: `${noun} id ${id} is given twice` });
      all.set(id, item);
    }
  }
  return ok(all);
}

/** @implements {PetCatalog} */
export class LedgerPets {
  /** @param {Ledger} ledger */
  constructor(ledger) {
    this.ledger = ledger;
  }

  /** @param {PetId} id */
  async get(id) {
    return this.ledger.rows.get(id)?.pet;
  }

  /** @param {readonly NewPet[]} pets */
  addAll(pets) {
    return this.add([pets]);
  }

  /** @param {AsyncIterable<readonly NewPet[]>} batches */
  addStream(batches) {
    return this.add(batches);
  }

  /** @returns {AsyncIterable<readonly StockedPet[]>} */
  async *listWithStock() {
    /** @type {PetId | undefined} */
    let after;
    for (;;) {
      const from = this.ledger.firstAfter(after);
      const ids = this.ledger.ids().slice(from, from + EXPORT_CHUNK);
      if (ids.length === 0) return;
      yield ids.map((id) => {
        const row = /** @type {import('./ledger.js').Row} */ (this.ledger.rows.get(id));
        return { ...row.pet, quantity: row.quantity };
      });
      after = ids[ids.length - 1];
    }
  }

  /**
   * @param {AsyncIterable<readonly NewPet[]> | Iterable<readonly NewPet[]>} batches
   * @returns {Promise<Result<number, DuplicatePet>>}
   */
  async add(batches) {
    const read = await readAll(batches, (p) => p.id, 'pet', 'duplicate_pet');
    if (!read.ok) return read;
    // The domain's checks (a RangeError past a limit) before anything is written.
    const rows = [...read.value.values()].map((p) => ({ pet: pet(p), quantity: p.quantity, version: FIRST_VERSION }));
    // Checked once the stream is read: another writer may have added one of its ids meanwhile.
    const clash = rows.find((row) => this.ledger.rows.has(row.pet.id));
    if (clash !== undefined)
      return fail({ code: 'duplicate_pet', message: `a pet with id ${clash.pet.id} already exists` });
    for (const row of rows) this.ledger.addRow(row);
    this.ledger.writes += 1;
    return ok(rows.length);
  }
}

/** @implements {OrderBook} */
export class LedgerOrders {
  /** @param {Ledger} ledger */
  constructor(ledger) {
    this.ledger = ledger;
  }

  async list() {
    return [...this.ledger.orders.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** @param {readonly Order[]} orders */
  addAll(orders) {
    return this.add([orders]);
  }

  /** @param {AsyncIterable<readonly Order[]>} batches */
  addStream(batches) {
    return this.add(batches);
  }

  /**
   * @param {AsyncIterable<readonly Order[]> | Iterable<readonly Order[]>} batches
   * @returns {Promise<Result<number, OrderRefusal>>}
   */
  async add(batches) {
    const read = await readAll(batches, (o) => o.id, 'order', 'duplicate_order');
    if (!read.ok) return read;
    for (const order of read.value.values()) {
      if (this.ledger.orders.has(order.id)) {
        return fail({ code: 'duplicate_order', message: `an order with id ${order.id} already exists` });
      }
      if (!this.ledger.rows.has(order.petId)) {
        return fail({
          code: 'pet_not_found',
          message: `order ${order.id} names pet ${order.petId}, which does not exist`,
        });
      }
    }
    for (const order of read.value.values()) this.ledger.orders.set(order.id, order);
    return ok(read.value.size);
  }
}
