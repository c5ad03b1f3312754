import type { Order } from '../../domain/order.js';
import type { OrderBook } from '../ports/order-book.js';

/** The store's orders, ordered by id. */
export class ListOrders {
  constructor(private readonly orders: OrderBook) {}

  execute(): Promise<readonly Order[]> {
    return this.orders.list();
  }
}
