import type { DomainError } from '../../domain/errors.js';
import type { Order } from '../../domain/order.js';
import type { Result } from '../../domain/result.js';

/** A refusal of an add: an order id already stored or given twice, or an order of an unknown pet. */
export type OrderRefusal = DomainError<'duplicate_order' | 'pet_not_found'>;

/** The store's orders. */
export interface OrderBook {
  /** Every order, ordered by id ascending. */
  list(): Promise<readonly Order[]>;

  /**
   * Adds every order or none: a duplicate id, or an order of a pet the store does not have, adds
   * nothing. Resolves to the number of orders added.
   */
  addAll(orders: readonly Order[]): Promise<Result<number, OrderRefusal>>;

  /**
   * Adds the orders of every batch, or none, as one addAll of all of them would. When `batches` throws,
   * nothing is added and its error is thrown on. Holds about one batch in process memory at a time
   * (the memory adapter excepted). Resolves to the number added.
   */
  addStream(batches: AsyncIterable<readonly Order[]>): Promise<Result<number, OrderRefusal>>;
}
