import type { Order } from '../../domain/order.js';
import type { Result } from '../../domain/result.js';
import type { OrderBook, OrderRefusal } from '../ports/order-book.js';

/** Adds orders, all or none: an array (the development seed), or a stream of batches (`orders import`). */
export class ImportOrders {
  constructor(private readonly orders: OrderBook) {}

  execute(orders: readonly Order[] | AsyncIterable<readonly Order[]>): Promise<Result<number, OrderRefusal>> {
    return Symbol.asyncIterator in orders ? this.orders.addStream(orders) : this.orders.addAll(orders);
  }
}
