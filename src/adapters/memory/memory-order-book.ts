import type { OrderBook, OrderRefusal } from '../../application/ports/order-book.js';
import { domainError } from '../../domain/errors.js';
import type { Order } from '../../domain/order.js';
import { fail, ok, type Result } from '../../domain/result.js';
import type { MemoryStore } from './memory-store.js';

export class MemoryOrderBook implements OrderBook {
  constructor(private readonly store: MemoryStore) {}

  async list(): Promise<readonly Order[]> {
    return [...this.store.orders.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  addAll(orders: readonly Order[]): Promise<Result<number, OrderRefusal>> {
    return this.addBatches([orders]);
  }

  addStream(batches: AsyncIterable<readonly Order[]>): Promise<Result<number, OrderRefusal>> {
    return this.addBatches(batches);
  }

  /** Stages every order first, so that a refusal or a throw anywhere in the stream writes nothing. */
  private async addBatches(
    batches: AsyncIterable<readonly Order[]> | Iterable<readonly Order[]>,
  ): Promise<Result<number, OrderRefusal>> {
    const staged = new Map<bigint, Order>();
    for await (const batch of batches) {
      for (const o of batch) {
        if (staged.has(o.id)) return fail(domainError('duplicate_order', `order id ${o.id} is given twice`));
        staged.set(o.id, o);
      }
    }
    // Checked once the stream is read, as the store may have changed while it was.
    for (const o of staged.values()) {
      if (this.store.orders.has(o.id)) {
        return fail(domainError('duplicate_order', `an order with id ${o.id} already exists`));
      }
      if (!this.store.pets.has(o.petId)) {
        return fail(domainError('pet_not_found', `order ${o.id} names pet ${o.petId}, which does not exist`));
      }
    }
    for (const o of staged.values()) this.store.orders.set(o.id, o);
    return ok(staged.size);
  }
}
