import type { Clock } from './ports/clock.js';
import type { WebhookSecrets, WebhookUrlCheck } from './ports/webhook-delivery.js';
import type { WebhookStore } from './ports/webhook-store.js';
import { AddWebhook } from './use-cases/add-webhook.js';
import { EnableWebhook } from './use-cases/enable-webhook.js';
import { ListWebhookDeliveries } from './use-cases/list-webhook-deliveries.js';
import { ListWebhooks } from './use-cases/list-webhooks.js';
import { RemoveWebhook } from './use-cases/remove-webhook.js';

/** What the webhook use cases need: the store, fresh ids and secrets, the URL rule, and the time. */
export interface WebhookPorts {
  readonly webhooks: WebhookStore;
  readonly secrets: WebhookSecrets;
  readonly checkUrl: WebhookUrlCheck;
  readonly clock: Clock;
}

/** The use cases of the `webhooks` admin commands. */
export interface WebhookAdmin {
  readonly addWebhook: AddWebhook;
  readonly listWebhooks: ListWebhooks;
  readonly removeWebhook: RemoveWebhook;
  readonly enableWebhook: EnableWebhook;
  readonly listWebhookDeliveries: ListWebhookDeliveries;
}

export function createWebhookAdmin(ports: WebhookPorts): WebhookAdmin {
  return {
    addWebhook: new AddWebhook(ports.webhooks, ports.secrets, ports.checkUrl, ports.clock),
    listWebhooks: new ListWebhooks(ports.webhooks),
    removeWebhook: new RemoveWebhook(ports.webhooks),
    enableWebhook: new EnableWebhook(ports.webhooks),
    listWebhookDeliveries: new ListWebhookDeliveries(ports.webhooks),
  };
}
