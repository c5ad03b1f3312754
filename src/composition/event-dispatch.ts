import type { Logger } from 'pino';
import { StandardWebhookSender } from '../adapters/webhooks/standard-webhook-sender.js';
import type { Clock } from '../application/ports/clock.js';
import type { WebhookStore } from '../application/ports/webhook-store.js';
import {
  type AttemptOutcome,
  DEFAULT_DELIVERY_OPTIONS,
  DeliverStockEvents,
} from '../application/use-cases/deliver-stock-events.js';
import { ForgetSettledDeliveries } from '../application/use-cases/forget-settled-deliveries.js';
import type { StockEventType } from '../domain/stock-event.js';
import type { Config } from './config.js';
import type { Part } from './lifecycle.js';
import { every } from './outcome-purge.js';

/** How often settled deliveries past their retention are looked for: every 10 minutes. */
const SETTLED_PURGE_EVERY_MS = 600_000;

/**
 * The dispatcher of this instance (see DeliverStockEvents), as a part: from its start, a round whenever
 * an attempt ends or there may be more to do, otherwise every PETSTORE_WEBHOOK_POLL_MS. A failed round
 * (the store down) is logged and tried again at the next tick; its leases lapse and any instance takes
 * them over. Every SETTLED_PURGE_EVERY_MS it also forgets the settled deliveries past their retention
 * (7 days). Its stop stops leasing, and resolves once the attempts under way are recorded (each ends
 * within its timeout).
 */
export function eventDispatch(
  deps: {
    readonly webhooks: WebhookStore;
    readonly clock: Clock;
    readonly logger: Logger;
    readonly onAttempt?: (type: StockEventType, outcome: AttemptOutcome) => void;
  },
  config: Pick<Config, 'webhooks'>,
): Part {
  const { pollMs, retryFirstDelayMs, allowPrivate, concurrency, maxInFlightPerEndpoint } = config.webhooks;
  const deliver = new DeliverStockEvents(
    deps.webhooks,
    new StandardWebhookSender({ allowPrivate }),
    deps.clock,
    Math.random,
    {
      ...DEFAULT_DELIVERY_OPTIONS,
      perEndpoint: maxInFlightPerEndpoint,
      schedule: { ...DEFAULT_DELIVERY_OPTIONS.schedule, firstDelayMs: retryFirstDelayMs },
    },
    (type, outcome) => {
      deps.onAttempt?.(type, outcome);
      if (outcome === 'given_up') deps.logger.warn({ type }, 'a webhook delivery was given up after 24 h of failures');
    },
  );
  const underWay = new Set<Promise<void>>();
  let stopped = false;
  let running = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  const later = (ms: number): void => {
    clearTimeout(timer);
    if (stopped) return;
    timer = setTimeout(() => void tick(), ms);
    timer.unref();
  };
  const wake = (): void => {
    if (running) again = true;
    else later(0);
  };
  const tick = async (): Promise<void> => {
    running = true;
    let busy = false;
    try {
      const round = await deliver.execute(concurrency - underWay.size);
      // Another round at once only when a full batch was routed (more is waiting): under a steady stream
      // of writes, routing then runs once a poll, not without pause.
      busy = round.routed >= DEFAULT_DELIVERY_OPTIONS.routeBatch;
      for (const attempt of round.attempts) {
        const tracked = attempt
          .catch((err: unknown) =>
            deps.logger.error({ err }, 'recording a webhook attempt failed; its lease will lapse'),
          )
          .finally(() => {
            underWay.delete(tracked);
            wake();
          });
        underWay.add(tracked);
      }
    } catch (err) {
      deps.logger.error({ err }, 'delivering stock events failed; retried at the next tick');
    } finally {
      running = false;
    }
    if (again || busy) {
      again = false;
      later(0);
    } else {
      later(pollMs);
    }
  };
  const forgetSettled = new ForgetSettledDeliveries(deps.webhooks, deps.clock);
  let stopPurge = (): void => {};
  return {
    name: 'event dispatch',
    start() {
      later(0);
      stopPurge = every(
        SETTLED_PURGE_EVERY_MS,
        () => forgetSettled.execute(),
        deps.logger,
        'forgot settled webhook deliveries past their retention',
        'forgetting settled webhook deliveries failed',
      );
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      stopPurge();
      await Promise.allSettled([...underWay]);
    },
  };
}
