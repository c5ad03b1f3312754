import type { WebhookEndpoint } from '../../domain/webhook-endpoint.js';
import type { WebhookStore } from '../ports/webhook-store.js';

/**
 * webhooks enable: turns on an endpoint that was disabled after failing for the retry window, with its
 * failures forgotten; the deliveries it still holds are attempted again. Undefined when no endpoint has that id.
 */
export class EnableWebhook {
  constructor(private readonly webhooks: WebhookStore) {}

  execute(id: string): Promise<WebhookEndpoint | undefined> {
    return this.webhooks.enableEndpoint(id);
  }
}
