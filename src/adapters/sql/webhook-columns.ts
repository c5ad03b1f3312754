import type { DeliveryAttempt, LeasedDelivery } from '../../application/ports/webhook-store.js';
import { inFlightByHost, withinHostCap } from '../../domain/delivery-turns.js';
import { type StockEventType, stockEventTypeOf } from '../../domain/stock-event.js';
import type { WebhookEndpoint } from '../../domain/webhook-endpoint.js';

/**
 * The webhook tables as the SQL stores keep them, shared by SQLite and PostgreSQL so that both read a
 * row alike: events as space-separated names, times in Unix ms, booleans as the driver gives them.
 */
export const ENDPOINT_COLUMNS = 'id, url, events, low_stock_threshold, enabled, failing_since_ms, created_at_ms';

type Whole = number | bigint;

export type EndpointRow = [
  id: string,
  url: string,
  events: string,
  lowStockThreshold: Whole | null,
  enabled: Whole | boolean,
  failingSinceMs: Whole | null,
  createdAtMs: Whole,
];

const orNull = (value: Whole | null): number | null => (value === null ? null : Number(value));

/** Stored event names; an unknown one is a corrupt row, which throws. */
export const eventsOfColumn = (text: string): StockEventType[] => text.split(' ').map(stockEventTypeOf);

export const endpointOfRow = (row: EndpointRow): WebhookEndpoint => ({
  id: row[0],
  url: row[1],
  events: eventsOfColumn(row[2]),
  lowStockThreshold: orNull(row[3]),
  enabled: row[4] === true || row[4] === 1n || row[4] === 1,
  failingSinceMs: orNull(row[5]),
  createdAtMs: Number(row[6]),
});

/** What a lease reads of a delivery and its endpoint (d: the delivery, e: the endpoint). */
export const LEASE_COLUMNS =
  'd.seq, d.id, d.endpoint_id, e.url, e.secret, d.type, d.body, d.attempts, d.created_at_ms, e.failing_since_ms';

export type LeaseRow = [
  seq: Whole,
  id: string,
  endpointId: string,
  url: string,
  secret: string,
  type: string,
  body: string,
  attempts: Whole,
  createdAtMs: Whole,
  failingSinceMs: Whole | null,
];

export const leasedOfRow = (row: LeaseRow, leaseUntilMs: number): LeasedDelivery => ({
  seq: BigInt(row[0]),
  id: row[1],
  endpointId: row[2],
  url: row[3],
  secret: row[4],
  type: stockEventTypeOf(row[5]),
  body: row[6],
  attempts: Number(row[7]),
  createdAtMs: Number(row[8]),
  failingSinceMs: orNull(row[9]),
  leaseUntilMs,
});

/** What `webhooks deliveries` reads of an attempt (a) and its delivery (d). */
export const ATTEMPT_COLUMNS = 'd.id, d.type, a.attempt, a.at_ms, a.status, a.error';

export type AttemptRow = [
  deliveryId: string,
  type: string,
  attempt: Whole,
  atMs: Whole,
  status: Whole | null,
  error: string | null,
];

export const attemptOfRow = (row: AttemptRow): DeliveryAttempt => ({
  deliveryId: row[0],
  type: stockEventTypeOf(row[1]),
  attempt: Number(row[2]),
  atMs: Number(row[3]),
  status: orNull(row[4]),
  error: row[5],
});

/** The state a settled delivery is left in. */
export const stateAfter = (delivered: boolean, nextAttemptMs: number | null): 'delivered' | 'failed' | 'pending' =>
  delivered ? 'delivered' : nextAttemptMs === null ? 'failed' : 'pending';

/**
 * The deliveries leased and not yet settled, counted by their endpoint's URL, for the cap per host
 * (`inFlightByHost`). `now` is the placeholder of the time.
 */
export const leasedByUrl = (now: string): string =>
  `SELECT e.url, count(*) FROM webhook_deliveries l JOIN webhook_endpoints e ON e.id = l.endpoint_id
   WHERE l.state = 'pending' AND l.lease_until_ms > ${now} GROUP BY e.url`;

/**
 * How many due deliveries a lease reads to choose from: `max`, or, with a cap per host, 1,000 more, so
 * that the deliveries of a host at its cap (skipped) leave room for the others'. Past those, a round
 * leases fewer, and the next round goes on.
 */
export const leaseCandidates = (max: number, perHost: number | undefined): number =>
  perHost === undefined ? max : max + 1_000;

/**
 * The deliveries a lease takes from its candidates (in the lease's order, see `fairDueHeads`): all of
 * them, or with `perHost` the first `max` within the cap per host (`withinHostCap`), counted with the
 * deliveries leased earlier (`leased`, by URL, see `leasedByUrl`).
 */
export function chooseLeased(
  candidates: readonly LeasedDelivery[],
  max: number,
  perHost: number | undefined,
  leased: readonly (readonly [url: string, count: Whole])[],
): LeasedDelivery[] {
  if (perHost === undefined) return [...candidates];
  const inFlight = inFlightByHost(leased.map(([url, count]) => [url, Number(count)] as const));
  return withinHostCap(candidates, { inFlight, perHost, max });
}

/**
 * The deliveries a lease may take, in the order it takes them (see `WebhookStore.lease` and
 * `takeTurns`, which the memory store runs and this query mirrors): the due heads of endpoints not
 * backing off (no pending delivery of theirs waits for a retry), numbered by their turn in their
 * endpoint, and kept while the endpoint's leased ones and the turn stay within `perEndpoint`. `now` and
 * `perEndpoint` are placeholders; the caller adds its LIMIT (and, on PostgreSQL, its row locks, which
 * lock only `d`: the window is computed in the subquery).
 */
export const fairDueHeads = (now: string, perEndpoint: string): string => `FROM (
    SELECT d.seq, e.failing_since_ms IS NOT NULL AS failing,
      ROW_NUMBER() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_ms, d.seq) AS turn,
      (SELECT count(*) FROM webhook_deliveries l WHERE l.state = 'pending' AND l.endpoint_id = d.endpoint_id
        AND l.lease_until_ms > ${now}) AS in_flight
    ${dueHeads(now)}
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries w WHERE w.state = 'pending'
        AND w.endpoint_id = d.endpoint_id AND w.attempts > 0 AND w.next_attempt_ms > ${now})
  ) c JOIN webhook_deliveries d ON d.seq = c.seq JOIN webhook_endpoints e ON e.id = d.endpoint_id
  WHERE c.in_flight + c.turn <= ${perEndpoint} AND d.state = 'pending' AND d.lease_until_ms <= ${now}
  ORDER BY c.turn, c.failing, d.next_attempt_ms, d.seq`;

/**
 * The first pending delivery of each pet at each endpoint, due and not leased: a later one of the same
 * pet waits until the one before it is delivered or given up, so one pet's events arrive in order.
 * `now` is the placeholder of the time; the caller adds its ORDER BY and LIMIT (and, on PostgreSQL,
 * its row locks).
 */
const dueHeads = (now: string): string => `FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
  WHERE d.state = 'pending' AND e.enabled AND d.next_attempt_ms <= ${now} AND d.lease_until_ms <= ${now}
    AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.state = 'pending'
      AND p.endpoint_id = d.endpoint_id AND p.pet_id = d.pet_id AND p.seq < d.seq)`;
