import type { StockEventType } from '../../domain/stock-event.js';
import type { WebhookEndpoint } from '../../domain/webhook-endpoint.js';

/** An endpoint to register, with the secret its deliveries are signed with. */
export interface NewWebhookEndpoint {
  readonly id: string;
  readonly url: string;
  /** `whsec_` and the base64 of 24 random bytes, as the Standard Webhooks libraries take it. */
  readonly secret: string;
  readonly events: readonly StockEventType[];
  readonly lowStockThreshold: number | null;
  readonly createdAtMs: number;
}

/** A delivery this instance leased: only it attempts the delivery until `leaseUntilMs`. */
export interface LeasedDelivery {
  /** Its place in the endpoint's queue: deliveries of one pet go out in this order. */
  readonly seq: bigint;
  /** The webhook-id: the same on every attempt. */
  readonly id: string;
  readonly endpointId: string;
  readonly url: string;
  readonly secret: string;
  readonly type: StockEventType;
  /** The JSON body, fixed when the delivery was made: every attempt sends the same bytes. */
  readonly body: string;
  /** Attempts made so far. */
  readonly attempts: number;
  /** Unix milliseconds of the change that raised it. */
  readonly createdAtMs: number;
  readonly failingSinceMs: number | null;
  readonly leaseUntilMs: number;
}

/** The end of one attempt, and what it leaves. */
export interface Settlement {
  readonly atMs: number;
  /** The receiver's HTTP status; null when none came (refused, timed out, unreachable). */
  readonly status: number | null;
  /** Why it failed, in a line; null when delivered. */
  readonly error: string | null;
  readonly delivered: boolean;
  /** When to try again; null when delivered or given up. */
  readonly nextAttemptMs: number | null;
  readonly disableEndpoint: boolean;
}

/** One attempt, as `webhooks deliveries` shows it. */
export interface DeliveryAttempt {
  readonly deliveryId: string;
  readonly type: StockEventType;
  /** 1 for the first attempt of the delivery. */
  readonly attempt: number;
  readonly atMs: number;
  readonly status: number | null;
  readonly error: string | null;
}

/** How far behind delivery is. */
export interface OutboxStats {
  /** Events not yet delivered or given up: changes not yet routed, and deliveries pending. */
  readonly depth: number;
  /** Unix milliseconds of the oldest of them; null when there is none. */
  readonly oldestAtMs: number | null;
}

/**
 * The webhook endpoints, and the outbox their events leave through. Every store writes an outbox entry
 * in the transaction of each stock change; `route` turns entries into one delivery per endpoint and
 * event, in the order of the changes; `lease` hands a delivery to one instance at a time.
 */
export interface WebhookStore {
  addEndpoint(endpoint: NewWebhookEndpoint): Promise<void>;
  /** Every endpoint, oldest first. */
  endpoints(): Promise<readonly WebhookEndpoint[]>;
  /** Removes it and every delivery of it; false when no endpoint has that id. */
  removeEndpoint(id: string): Promise<boolean>;
  /** Turns it on again and forgets its failures; undefined when no endpoint has that id. */
  enableEndpoint(id: string): Promise<WebhookEndpoint | undefined>;
  /** The most recent `limit` attempts at its deliveries, newest first; undefined when no endpoint has that id. */
  attempts(endpointId: string, limit: number): Promise<readonly DeliveryAttempt[] | undefined>;
  /**
   * Routes at most `max` outbox entries, oldest change first, in one transaction: each becomes the
   * deliveries its change raises for the enabled endpoints (see `eventsOf`), and leaves the outbox.
   * One instance routes at a time, so the deliveries of a pet are queued in the order of its changes.
   * Resolves to how many entries it routed.
   */
  route(max: number): Promise<number>;
  /**
   * Leases at most `max` deliveries due at `nowMs` until `nowMs + leaseMs`: pending, of an enabled
   * endpoint, not leased by another instance, and each the first pending one of its pet at its endpoint.
   * An endpoint backs off as one: while one of its deliveries waits for the retry of a failed attempt,
   * none of its others is leased either. Of the rest, the endpoints take turns as `takeTurns` says
   * (oldest due first within an endpoint), none past `perEndpoint` deliveries leased at once (those
   * still leased from earlier rounds counted; no bound when absent). Of those, none past `perHost`
   * deliveries to one host (`destinationHost`) leased at once, over all of its endpoints
   * (`withinHostCap`; no bound when absent). Instances that lease at the same moment may each take up to
   * those bounds.
   */
  lease(
    nowMs: number,
    max: number,
    leaseMs: number,
    perEndpoint?: number,
    perHost?: number,
  ): Promise<readonly LeasedDelivery[]>;
  /** Records an attempt; nothing when the lease was lost meanwhile (another instance took the delivery). */
  settle(delivery: LeasedDelivery, settlement: Settlement): Promise<void>;
  /**
   * Forgets at most `max` deliveries that are settled (delivered, or given up) and whose event is older
   * than `beforeMs`, with their attempts; resolves to how many. Pending ones are never touched.
   */
  forgetSettled(beforeMs: number, max: number): Promise<number>;
  stats(): Promise<OutboxStats>;
}
