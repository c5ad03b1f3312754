import { inBatches } from '../in-batches.js';
import type { Clock } from '../ports/clock.js';
import type { WebhookStore } from '../ports/webhook-store.js';

/** How long a settled delivery and its attempts are kept for `webhooks deliveries`: 7 days. */
export const SETTLED_DELIVERY_RETENTION_MS = 7 * 86_400_000;

/** How many settled deliveries one store call forgets: small, so no purge holds the store for long. */
export const FORGET_DELIVERIES_BATCH = 500;

/**
 * Forgets the deliveries delivered or given up more than a retention ago (by their event's time), with
 * their attempts, a small batch per store call: every change makes a delivery for every endpoint that
 * wants it, so without this the tables would grow with every stock write for as long as the service runs.
 */
export class ForgetSettledDeliveries {
  constructor(
    private readonly webhooks: WebhookStore,
    private readonly clock: Clock,
    private readonly retentionMs: number = SETTLED_DELIVERY_RETENTION_MS,
  ) {}

  /** Resolves to how many deliveries were forgotten. */
  execute(): Promise<number> {
    const beforeMs = this.clock.nowMs() - this.retentionMs;
    return inBatches((max) => this.webhooks.forgetSettled(beforeMs, max), FORGET_DELIVERIES_BATCH);
  }
}
