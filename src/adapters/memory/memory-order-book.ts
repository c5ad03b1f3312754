import type { OrderBook } from '../../application/ports/order-book.js';
import { type DomainError, domainError } from '../../domain/errors.js';
import type { Order } from '../../domain/order.js';
import { fail, ok, type Result } from '../../domain/result.js';
import type { MemoryStore } from './memory-store.js';

export class MemoryOrderBook implements OrderBook {
  constructor(private readonly store: MemoryStore) {}

  async list(): Promise<readonly Order[]> {
    return [...this.store.orders.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async addAll(orders: readonly Order[]): Promise<Result<number, DomainError<'duplicate_order' | 'pet_not_found'>>> {
    const seen = new Set<bigint>();
    for (const o of orders) {
      if (seen.has(o.id) || this.store.orders.has(o.id)) {
        return fail(domainError('duplicate_order', `an order with id ${o.id} already exists`));
      }
      if (!this.store.pets.has(o.petId)) {
        return fail(domainError('pet_not_found', `order ${o.id} names pet ${o.petId}, which does not exist`));
      }
      seen.add(o.id);
    }
    for (const o of orders) this.store.orders.set(o.id, o);
    return ok(orders.length);
  }
}
