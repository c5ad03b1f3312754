import { fail, ok, type Result } from '../../domain/result.js';
import type { StockEventType } from '../../domain/stock-event.js';
import type { WebhookEndpoint } from '../../domain/webhook-endpoint.js';
import type { Clock } from '../ports/clock.js';
import type { WebhookSecrets, WebhookUrlCheck } from '../ports/webhook-delivery.js';
import type { WebhookStore } from '../ports/webhook-store.js';

export interface AddWebhookInput {
  readonly url: string;
  readonly events: readonly StockEventType[];
  readonly lowStockThreshold: number | null;
}

/** webhooks add: registers an endpoint and answers it with its signing secret, shown this once. */
export class AddWebhook {
  constructor(
    private readonly webhooks: WebhookStore,
    private readonly secrets: WebhookSecrets,
    private readonly checkUrl: WebhookUrlCheck,
    private readonly clock: Clock,
  ) {}

  async execute(
    input: AddWebhookInput,
  ): Promise<Result<{ readonly endpoint: WebhookEndpoint; readonly secret: string }, string>> {
    const problem = await this.checkUrl(input.url);
    if (problem !== undefined) return fail(problem);
    const endpoint = {
      id: this.secrets.newEndpointId(),
      url: input.url,
      events: input.events,
      lowStockThreshold: input.lowStockThreshold,
      createdAtMs: this.clock.nowMs(),
    };
    const secret = this.secrets.newSecret();
    await this.webhooks.addEndpoint({ ...endpoint, secret });
    return ok({ endpoint: { ...endpoint, enabled: true, failingSinceMs: null }, secret });
  }
}
