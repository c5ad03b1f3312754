import type { DomainError } from '../../domain/errors.js';
import type { Order } from '../../domain/order.js';
import type { Result } from '../../domain/result.js';
import type { OrderBook } from '../ports/order-book.js';

/** Adds orders, all or none (`orders import`, the development seed). */
export class ImportOrders {
  constructor(private readonly orders: OrderBook) {}

  execute(orders: readonly Order[]): Promise<Result<number, DomainError<'duplicate_order' | 'pet_not_found'>>> {
    return this.orders.addAll(orders);
  }
}
