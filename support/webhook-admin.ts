import { NodeWebhookSecrets } from '../src/adapters/system/node-webhook-secrets.js';
import { webhookUrlCheck } from '../src/adapters/webhooks/webhook-url-policy.js';
import type { Clock } from '../src/application/ports/clock.js';
import type { WebhookStore } from '../src/application/ports/webhook-store.js';
import { createWebhookAdmin, type WebhookAdmin } from '../src/application/webhook-core.js';

/** The webhook admin over `webhooks`, as the service builds it: the real URL rule unless told otherwise. */
export const webhookAdminOf = (webhooks: WebhookStore, clock: Clock, allowPrivate = false): WebhookAdmin =>
  createWebhookAdmin({ webhooks, clock, secrets: new NodeWebhookSecrets(), checkUrl: webhookUrlCheck(allowPrivate) });
