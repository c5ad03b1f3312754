import type { DomainError } from '../../domain/errors.js';
import type { Order } from '../../domain/order.js';
import type { Result } from '../../domain/result.js';

/** The store's orders. */
export interface OrderBook {
  /** Every order, ordered by id ascending. */
  list(): Promise<readonly Order[]>;

  /**
   * Adds every order or none: a duplicate id, or an order of a pet the store does not have, adds
   * nothing. Resolves to the number of orders added.
   */
  addAll(orders: readonly Order[]): Promise<Result<number, DomainError<'duplicate_order' | 'pet_not_found'>>>;
}
