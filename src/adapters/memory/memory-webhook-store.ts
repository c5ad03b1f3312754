import type {
  DeliveryAttempt,
  LeasedDelivery,
  NewWebhookEndpoint,
  OutboxStats,
  Settlement,
  WebhookStore,
} from '../../application/ports/webhook-store.js';
import { inFlightByHost, takeTurns, withinHostCap } from '../../domain/delivery-turns.js';
import { deliveriesOf, type PlannedDelivery } from '../../domain/stock-event-json.js';
import type { WebhookEndpoint } from '../../domain/webhook-endpoint.js';
import type { MemoryStore } from './memory-store.js';

interface StoredEndpoint {
  endpoint: WebhookEndpoint;
  readonly secret: string;
}

interface StoredDelivery extends PlannedDelivery {
  readonly seq: bigint;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptMs: number;
  leaseUntilMs: number;
}

/**
 * Webhooks over an in-memory store. Its outbox is the store's own list of changes, read from the
 * first change not yet routed: a change and its outbox entry are the one push of a write, which runs
 * whole before anything else. As in the other stores, a change made while no endpoint is registered has
 * no outbox entry: registering the first endpoint, or removing the last, passes over what is unrouted.
 */
export class MemoryWebhookStore implements WebhookStore {
  private readonly endpointsById = new Map<string, StoredEndpoint>();
  private readonly deliveries: StoredDelivery[] = [];
  private readonly attemptLog: (DeliveryAttempt & { readonly endpointId: string })[] = [];
  /** How many of the store's changes are routed. */
  private routed = 0;
  private lastSeq = 0n;

  constructor(private readonly store: MemoryStore) {}

  async addEndpoint(endpoint: NewWebhookEndpoint): Promise<void> {
    const { secret, ...rest } = endpoint;
    if (this.endpointsById.size === 0) this.routed = this.store.changes.length;
    this.endpointsById.set(endpoint.id, { endpoint: { ...rest, enabled: true, failingSinceMs: null }, secret });
  }

  async endpoints(): Promise<readonly WebhookEndpoint[]> {
    return [...this.endpointsById.values()].map((stored) => stored.endpoint);
  }

  async removeEndpoint(id: string): Promise<boolean> {
    if (!this.endpointsById.delete(id)) return false;
    if (this.endpointsById.size === 0) this.routed = this.store.changes.length;
    for (let i = this.deliveries.length - 1; i >= 0; i -= 1) {
      if (this.deliveries[i]?.endpointId === id) this.deliveries.splice(i, 1);
    }
    return true;
  }

  async enableEndpoint(id: string): Promise<WebhookEndpoint | undefined> {
    const stored = this.endpointsById.get(id);
    if (stored === undefined) return undefined;
    stored.endpoint = { ...stored.endpoint, enabled: true, failingSinceMs: null };
    return stored.endpoint;
  }

  async attempts(endpointId: string, limit: number): Promise<readonly DeliveryAttempt[] | undefined> {
    if (!this.endpointsById.has(endpointId)) return undefined;
    return this.attemptLog
      .filter((attempt) => attempt.endpointId === endpointId)
      .slice(-limit)
      .reverse()
      .map(({ endpointId: _, ...attempt }) => attempt);
  }

  async route(max: number): Promise<number> {
    const changes = this.store.changes.slice(this.routed, this.routed + max);
    const enabled = [...this.endpointsById.values()].map((s) => s.endpoint).filter((e) => e.enabled);
    for (const change of changes) {
      for (const planned of deliveriesOf(change, enabled)) {
        this.lastSeq += 1n;
        this.deliveries.push({
          ...planned,
          seq: this.lastSeq,
          state: 'pending',
          attempts: 0,
          nextAttemptMs: 0,
          leaseUntilMs: 0,
        });
      }
      this.routed += 1;
    }
    return changes.length;
  }

  async lease(
    nowMs: number,
    max: number,
    leaseMs: number,
    perEndpoint = Number.MAX_SAFE_INTEGER,
    perHost?: number,
  ): Promise<readonly LeasedDelivery[]> {
    const heads = new Set<string>();
    const inFlight = new Map<string, number>();
    const leasedUrls: [string, number][] = [];
    const backingOff = new Set<string>();
    for (const d of this.deliveries) {
      if (d.state !== 'pending') continue;
      if (d.leaseUntilMs > nowMs) {
        inFlight.set(d.endpointId, (inFlight.get(d.endpointId) ?? 0) + 1);
        leasedUrls.push([(this.endpointsById.get(d.endpointId) as StoredEndpoint).endpoint.url, 1]);
      } else if (d.attempts > 0 && d.nextAttemptMs > nowMs) backingOff.add(d.endpointId);
    }
    const due: Array<{
      delivery: StoredDelivery;
      stored: StoredEndpoint;
      endpointId: string;
      url: string;
      endpointFailing: boolean;
    }> = [];
    for (const delivery of this.deliveries) {
      if (delivery.state !== 'pending') continue;
      const queue = `${delivery.endpointId} ${delivery.petId}`;
      if (heads.has(queue)) continue;
      heads.add(queue);
      const stored = this.endpointsById.get(delivery.endpointId) as StoredEndpoint;
      if (!stored.endpoint.enabled || delivery.nextAttemptMs > nowMs || delivery.leaseUntilMs > nowMs) continue;
      if (backingOff.has(delivery.endpointId)) continue;
      due.push({
        delivery,
        stored,
        endpointId: delivery.endpointId,
        url: stored.endpoint.url,
        endpointFailing: stored.endpoint.failingSinceMs !== null,
      });
    }
    due.sort((a, b) => a.delivery.nextAttemptMs - b.delivery.nextAttemptMs || Number(a.delivery.seq - b.delivery.seq));
    const turns =
      perHost === undefined
        ? takeTurns(due, { inFlight, perEndpoint, max })
        : withinHostCap(takeTurns(due, { inFlight, perEndpoint, max: Number.MAX_SAFE_INTEGER }), {
            inFlight: inFlightByHost(leasedUrls),
            perHost,
            max,
          });
    return turns.map(({ delivery, stored }) => {
      delivery.leaseUntilMs = nowMs + leaseMs;
      return {
        seq: delivery.seq,
        id: delivery.id,
        endpointId: delivery.endpointId,
        url: stored.endpoint.url,
        secret: stored.secret,
        type: delivery.type,
        body: delivery.body,
        attempts: delivery.attempts,
        createdAtMs: delivery.createdAtMs,
        failingSinceMs: stored.endpoint.failingSinceMs,
        leaseUntilMs: delivery.leaseUntilMs,
      };
    });
  }

  async settle(leased: LeasedDelivery, settlement: Settlement): Promise<void> {
    const delivery = this.deliveries.find((d) => d.seq === leased.seq);
    if (delivery === undefined || delivery.state !== 'pending' || delivery.leaseUntilMs !== leased.leaseUntilMs) return;
    delivery.attempts += 1;
    delivery.leaseUntilMs = 0;
    delivery.state = settlement.delivered ? 'delivered' : settlement.nextAttemptMs === null ? 'failed' : 'pending';
    delivery.nextAttemptMs = settlement.nextAttemptMs ?? 0;
    this.attemptLog.push({
      endpointId: delivery.endpointId,
      deliveryId: delivery.id,
      type: delivery.type,
      attempt: delivery.attempts,
      atMs: settlement.atMs,
      status: settlement.status,
      error: settlement.error,
    });
    const stored = this.endpointsById.get(delivery.endpointId) as StoredEndpoint;
    const { endpoint } = stored;
    stored.endpoint = settlement.delivered
      ? { ...endpoint, failingSinceMs: null }
      : {
          ...endpoint,
          failingSinceMs: endpoint.failingSinceMs ?? settlement.atMs,
          enabled: endpoint.enabled && !settlement.disableEndpoint,
        };
  }

  async forgetSettled(beforeMs: number, max: number): Promise<number> {
    const forgotten = new Set<string>();
    for (const d of this.deliveries) {
      if (forgotten.size >= max) break;
      if (d.state !== 'pending' && d.createdAtMs < beforeMs) forgotten.add(d.id);
    }
    if (forgotten.size === 0) return 0;
    // In place: the lists are the store's own.
    const keep = <T>(list: T[], gone: (item: T) => boolean): void => {
      let kept = 0;
      for (const item of list) if (!gone(item)) list[kept++] = item;
      list.length = kept;
    };
    keep(this.deliveries, (d) => forgotten.has(d.id));
    keep(this.attemptLog, (a) => forgotten.has(a.deliveryId));
    return forgotten.size;
  }

  async stats(): Promise<OutboxStats> {
    const unrouted = this.endpointsById.size === 0 ? [] : this.store.changes.slice(this.routed);
    const pending = this.deliveries.filter((d) => d.state === 'pending');
    const times = [...unrouted.map((c) => c.atMs), ...pending.map((d) => d.createdAtMs)];
    return { depth: times.length, oldestAtMs: times.length === 0 ? null : Math.min(...times) };
  }
}
