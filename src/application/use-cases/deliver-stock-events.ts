import { DEFAULT_RETRY_SCHEDULE, type RetrySchedule, verdictOf } from '../../domain/retry-schedule.js';
import type { StockEventType } from '../../domain/stock-event.js';
import type { Clock } from '../ports/clock.js';
import type { WebhookSender } from '../ports/webhook-delivery.js';
import type { LeasedDelivery, WebhookStore } from '../ports/webhook-store.js';

/** What became of an attempt, for the metrics. */
export type AttemptOutcome = 'delivered' | 'retrying' | 'given_up';

export interface DeliveryOptions {
  /** How long a lease lasts: longer than an attempt may take (the sender's timeout), with room to settle. */
  readonly leaseMs: number;
  /** How many outbox entries one round routes at most. */
  readonly routeBatch: number;
  /** How many deliveries of one endpoint may be leased at once (see `WebhookStore.lease`). */
  readonly perEndpoint: number;
  /** How many deliveries to one host (`destinationHost`), over all of its endpoints, may be leased at once. */
  readonly perHost: number;
  readonly schedule: RetrySchedule;
}

/**
 * A lease of 15 s: the 10 s timeout of an attempt, and 5 s to record it; 4 attempts at once an
 * endpoint, and 16 a host (the endpoints of one receiver share them).
 */
export const DEFAULT_DELIVERY_OPTIONS: DeliveryOptions = {
  leaseMs: 15_000,
  routeBatch: 500,
  perEndpoint: 4,
  perHost: 16,
  schedule: DEFAULT_RETRY_SCHEDULE,
};

/** One round's work: the entries it routed, and its attempts, under way. */
export interface DeliveryRound {
  readonly routed: number;
  /** One per delivery leased; each resolves once its attempt is recorded. */
  readonly attempts: readonly Promise<void>[];
}

/**
 * One round of the dispatcher that runs in every instance: routes outbox entries into deliveries,
 * leases at most `max` due ones (so no other instance attempts them meanwhile), at most
 * `perEndpoint` of one endpoint and `perHost` to one host at once and none of an endpoint backing off
 * after a failure (so an endpoint that never answers holds a few attempts, not every one, and a
 * receiver that never answers holds a few more for all of its endpoints), and attempts each.
 * An attempt's verdict (delivered; retry after a backoff; given up; endpoint disabled) is recorded with
 * it. A delivery whose instance dies mid-attempt is leased again by any instance once its lease ends:
 * delivery is at least once, with the same webhook-id.
 */
export class DeliverStockEvents {
  constructor(
    private readonly webhooks: WebhookStore,
    private readonly sender: WebhookSender,
    private readonly clock: Clock,
    private readonly random: () => number,
    private readonly options: DeliveryOptions = DEFAULT_DELIVERY_OPTIONS,
    private readonly onAttempt: (type: StockEventType, outcome: AttemptOutcome) => void = () => {},
  ) {}

  async execute(max: number): Promise<DeliveryRound> {
    const routed = await this.webhooks.route(this.options.routeBatch);
    const leased =
      max < 1
        ? []
        : await this.webhooks.lease(
            this.clock.nowMs(),
            max,
            this.options.leaseMs,
            this.options.perEndpoint,
            this.options.perHost,
          );
    return { routed, attempts: leased.map((delivery) => this.attempt(delivery)) };
  }

  private async attempt(delivery: LeasedDelivery): Promise<void> {
    const atMs = this.clock.nowMs();
    const { url, id, secret, body } = delivery;
    const answer = await this.sender.send({ url, id, secret, body, atMs });
    const ok = answer.status !== null && answer.status >= 200 && answer.status < 300;
    const verdict = verdictOf(
      { ok, atMs, failures: delivery.attempts + 1, random: this.random() },
      delivery,
      this.options.schedule,
    );
    await this.webhooks.settle(delivery, {
      atMs,
      status: answer.status,
      error: ok ? null : (answer.error ?? `answered ${answer.status}`),
      ...verdict,
    });
    this.onAttempt(
      delivery.type,
      verdict.delivered ? 'delivered' : verdict.nextAttemptMs === null ? 'given_up' : 'retrying',
    );
  }
}
