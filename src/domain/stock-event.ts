import type { StockChange } from './stock-change.js';

/** What a webhook endpoint can be told of: every change, and the crossings of three lines. */
export type StockEventType =
  | 'inventory.updated'
  | 'inventory.low_stock'
  | 'inventory.out_of_stock'
  | 'inventory.back_in_stock';

export const STOCK_EVENT_TYPES: readonly StockEventType[] = [
  'inventory.updated',
  'inventory.low_stock',
  'inventory.out_of_stock',
  'inventory.back_in_stock',
];

const EVENT_TYPES: ReadonlySet<string> = new Set(STOCK_EVENT_TYPES);

export const isStockEventType = (value: string): value is StockEventType => EVENT_TYPES.has(value);

/** A stored event type; anything else is a corrupt record, which throws rather than leaks. */
export function stockEventTypeOf(value: string): StockEventType {
  if (!isStockEventType(value)) throw new RangeError(`${value} is not a stock event type`);
  return value;
}

/** What an endpoint asked to be told of. */
export interface Subscription {
  readonly events: readonly StockEventType[];
  /** Low stock is a quantity at or below this; null when the endpoint set none (no low_stock then). */
  readonly lowStockThreshold: number | null;
}

/**
 * The events one change raises for one endpoint, in a fixed order. A crossing is a change whose before
 * is on one side of the line and whose after is on the other: each crossing is one change, recorded
 * once, so its event is raised once, and a change that stays below a line raises nothing.
 */
export function eventsOf(change: Pick<StockChange, 'before' | 'after'>, subscription: Subscription): StockEventType[] {
  const before = change.before.quantity;
  const after = change.after.quantity;
  const threshold = subscription.lowStockThreshold;
  const raised: Record<StockEventType, boolean> = {
    'inventory.updated': true,
    'inventory.low_stock': threshold !== null && before > threshold && after <= threshold,
    'inventory.out_of_stock': before > 0 && after === 0,
    'inventory.back_in_stock': before === 0 && after > 0,
  };
  return STOCK_EVENT_TYPES.filter((type) => raised[type] && subscription.events.includes(type));
}
