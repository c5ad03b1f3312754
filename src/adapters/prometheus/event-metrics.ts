import { Counter, Gauge, type Registry } from 'prom-client';
import type { OutboxStats } from '../../application/ports/webhook-store.js';
import type { AttemptOutcome } from '../../application/use-cases/deliver-stock-events.js';
import type { StockEventType } from '../../domain/stock-event.js';

/** Counts one attempt at a webhook delivery. */
export type AttemptCounter = (type: StockEventType, outcome: AttemptOutcome) => void;

/**
 * The metrics of stock events in `registry`: attempts by event type and outcome (delivered, retrying,
 * given_up), and the outbox's depth and the age of its oldest event, read from the store at each
 * scrape (a store that cannot answer leaves the last values). Both label sets are fixed.
 */
export function eventMetrics(
  registry: Registry,
  stats: () => Promise<OutboxStats>,
  nowMs: () => number,
): AttemptCounter {
  const deliveries = new Counter({
    name: 'petstore_webhook_deliveries_total',
    help: 'Attempts at webhook deliveries, by event type and outcome (delivered, retrying, given_up).',
    labelNames: ['event_type', 'outcome'] as const,
    registers: [registry],
  });
  let last: OutboxStats = { depth: 0, oldestAtMs: null };
  const read = async (): Promise<OutboxStats> => {
    last = await stats().catch(() => last);
    return last;
  };
  new Gauge({
    name: 'petstore_outbox_depth',
    help: 'Stock events not yet delivered nor given up: changes not yet routed, and deliveries pending.',
    registers: [registry],
    async collect() {
      this.set((await read()).depth);
    },
  });
  new Gauge({
    name: 'petstore_outbox_oldest_event_age_seconds',
    help: 'Age of the oldest stock event not yet delivered nor given up; 0 when there is none.',
    registers: [registry],
    collect() {
      this.set(last.oldestAtMs === null ? 0 : Math.max(0, (nowMs() - last.oldestAtMs) / 1000));
    },
  });
  return (type, outcome) => deliveries.inc({ event_type: type, outcome });
}
