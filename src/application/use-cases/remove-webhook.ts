import type { WebhookStore } from '../ports/webhook-store.js';

/** webhooks remove: the endpoint, its queued deliveries and its attempts; false when no endpoint has that id. */
export class RemoveWebhook {
  constructor(private readonly webhooks: WebhookStore) {}

  execute(id: string): Promise<boolean> {
    return this.webhooks.removeEndpoint(id);
  }
}
