import type { DeliveryAttempt, WebhookStore } from '../ports/webhook-store.js';

/** webhooks deliveries: the most recent attempts at an endpoint's deliveries, newest first. */
export class ListWebhookDeliveries {
  constructor(private readonly webhooks: WebhookStore) {}

  execute(input: { readonly id: string; readonly limit: number }): Promise<readonly DeliveryAttempt[] | undefined> {
    return this.webhooks.attempts(input.id, input.limit);
  }
}
