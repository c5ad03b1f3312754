import { type InventoryItem, withStock } from './inventory-item.js';
import type { Quantity } from './quantity.js';

/**
 * An inventory entry with its version: 1 when the pet is added, one more with every stock change. The
 * version is what a client names in `If-Match` to say "only if nobody changed it since I looked".
 */
export interface InventoryEntry {
  readonly item: InventoryItem;
  readonly version: number;
}

/** The first version of an entry, when its pet is added. */
export const FIRST_VERSION = 1;

/** What a stock write will do to the entry it found: refuse, or store `after` as `version`. */
export type StockWritePlan =
  | { readonly kind: 'pet_not_found' }
  | { readonly kind: 'version_mismatch'; readonly currentVersion: number }
  | { readonly kind: 'write'; readonly before: InventoryItem; readonly after: InventoryItem; readonly version: number };

/**
 * Decides a stock write against the entry as it is now, inside the store's transaction: every store
 * runs this one rule, so none can differ on when a write applies. A missing pet comes first (a 404
 * answers before any precondition, as RFC 9110 section 13.2.2 orders it); then the write applies only
 * when `ifVersion` is absent or lists the current version; the status moves by the domain's rule.
 */
export function planStockWrite(
  current: InventoryEntry | undefined,
  quantity: Quantity,
  ifVersion: readonly number[] | undefined,
): StockWritePlan {
  if (current === undefined) return { kind: 'pet_not_found' };
  if (ifVersion !== undefined && !ifVersion.includes(current.version)) {
    return { kind: 'version_mismatch', currentVersion: current.version };
  }
  return {
    kind: 'write',
    before: current.item,
    after: withStock(current.item, quantity),
    version: current.version + 1,
  };
}
