import type { WebhookEndpoint } from '../../domain/webhook-endpoint.js';
import type { WebhookStore } from '../ports/webhook-store.js';

/** webhooks list: every endpoint, oldest first (never a secret). */
export class ListWebhooks {
  constructor(private readonly webhooks: WebhookStore) {}

  execute(): Promise<readonly WebhookEndpoint[]> {
    return this.webhooks.endpoints();
  }
}
