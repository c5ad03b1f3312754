import type { StockEventType, Subscription } from './stock-event.js';

/** A receiver of stock events, as the admin registered it. Its signing secret is kept apart. */
export interface WebhookEndpoint extends Subscription {
  /** `whk_` and 16 base62 characters. */
  readonly id: string;
  readonly url: string;
  readonly events: readonly StockEventType[];
  /** False once it failed for the whole retry window, until `webhooks enable`. */
  readonly enabled: boolean;
  /** Unix milliseconds of the first failed attempt since its last success; null while none failed. */
  readonly failingSinceMs: number | null;
  readonly createdAtMs: number;
}

/**
 * The webhook-id of one event of one change for one endpoint: stable, so every retry (by this
 * instance or another, before or after a restart) carries the same one, and a receiver deduplicates
 * on it.
 */
export const deliveryIdOf = (endpointId: string, changeId: bigint, type: StockEventType): string =>
  `msg_${endpointId.replace(/^whk_/, '')}_${changeId}_${type.replace('inventory.', '')}`;
