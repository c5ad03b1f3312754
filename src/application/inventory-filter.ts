import { availableOf, type InventoryItem } from '../domain/inventory-item.js';
import type { InventoryQuery } from './ports/inventory-repository.js';

/**
 * Whether `item` passes the filters of `query` (its statuses and maxAvailable; paging aside): the rule
 * every store applies, written once for the stores that filter items they have already read.
 */
export function matchesInventoryQuery(item: InventoryItem, query: InventoryQuery): boolean {
  if (query.statuses !== undefined && !query.statuses.includes(item.status)) return false;
  return query.maxAvailable === undefined || availableOf(item) <= query.maxAvailable;
}
