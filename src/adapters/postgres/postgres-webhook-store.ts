import type {
  DeliveryAttempt,
  LeasedDelivery,
  NewWebhookEndpoint,
  OutboxStats,
  Settlement,
  WebhookStore,
} from '../../application/ports/webhook-store.js';
import { deliveriesOf, eventsColumn } from '../../domain/stock-event-json.js';
import type { WebhookEndpoint } from '../../domain/webhook-endpoint.js';
import {
  ATTEMPT_COLUMNS,
  type AttemptRow,
  attemptOfRow,
  chooseLeased,
  ENDPOINT_COLUMNS,
  type EndpointRow,
  endpointOfRow,
  fairDueHeads,
  LEASE_COLUMNS,
  type LeaseRow,
  leaseCandidates,
  leasedByUrl,
  leasedOfRow,
  stateAfter,
} from '../sql/webhook-columns.js';
import type { PostgresDatabase } from './postgres-database.js';
import { changeOfPgRow, type PetChangeRow } from './postgres-stock-change-feed.js';

/** The advisory lock of routing: one instance routes at a time ("EVENTS"). */
const ROUTE_LOCK = 0x4556454e_5453n;

/**
 * Webhooks in PostgreSQL, shared by every instance. The outbox is filled by a trigger in each change's
 * transaction (migration 5). Routing runs under an advisory lock that one instance holds at a time,
 * so deliveries are queued in the order of their changes; a lease takes due deliveries FOR UPDATE SKIP
 * LOCKED, so two instances leasing at once take different ones and neither waits for the other.
 */
export class PostgresWebhookStore implements WebhookStore {
  constructor(private readonly db: PostgresDatabase) {}

  async addEndpoint(e: NewWebhookEndpoint): Promise<void> {
    await this.db.run(
      `INSERT INTO webhook_endpoints (id, url, secret, events, low_stock_threshold, created_at_ms)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [e.id, e.url, e.secret, eventsColumn(e.events), e.lowStockThreshold, e.createdAtMs],
    );
  }

  async endpoints(): Promise<readonly WebhookEndpoint[]> {
    const rows = await this.db.rows<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints ORDER BY created_at_ms, id`,
    );
    return rows.map(endpointOfRow);
  }

  async removeEndpoint(id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM webhook_endpoints WHERE id = $1', [id])) > 0;
  }

  async enableEndpoint(id: string): Promise<WebhookEndpoint | undefined> {
    const [row] = await this.db.rows<EndpointRow>(
      `UPDATE webhook_endpoints SET enabled = true, failing_since_ms = NULL WHERE id = $1 RETURNING ${ENDPOINT_COLUMNS}`,
      [id],
    );
    return row === undefined ? undefined : endpointOfRow(row);
  }

  async attempts(endpointId: string, limit: number): Promise<readonly DeliveryAttempt[] | undefined> {
    const [known] = await this.db.rows<[number]>('SELECT 1 FROM webhook_endpoints WHERE id = $1', [endpointId]);
    if (known === undefined) return undefined;
    const rows = await this.db.rows<AttemptRow>(
      `SELECT ${ATTEMPT_COLUMNS} FROM webhook_attempts a JOIN webhook_deliveries d ON d.seq = a.delivery_seq
       WHERE a.endpoint_id = $1 ORDER BY a.seq DESC LIMIT $2`,
      [endpointId, limit],
    );
    return rows.map(attemptOfRow);
  }

  /**
   * Without the lock (another instance is routing) it routes nothing: that instance queues the same
   * entries. A pet's changes commit in the order of their ids (each takes its id under the pet's row
   * lock), so an entry visible here has every earlier change of its pet visible too.
   */
  route(max: number): Promise<number> {
    return this.db.transaction(async (tx) => {
      const [[locked] = [false]] = await tx.rows<[boolean]>('SELECT pg_try_advisory_xact_lock($1)', [ROUTE_LOCK]);
      if (!locked) return 0;
      const rows = await tx.rows<PetChangeRow>(
        `SELECT c.pet_id, c.id, c.before_quantity, c.before_status, c.after_quantity, c.after_status, c.actor,
           c.at_ms, c.kind, c.reason
         FROM event_outbox o JOIN stock_changes c ON c.id = o.change_id ORDER BY o.change_id LIMIT $1`,
        [max],
      );
      if (rows.length === 0) return 0;
      const endpoints = (
        await tx.rows<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE enabled`)
      ).map(endpointOfRow);
      const changes = rows.map(changeOfPgRow);
      const planned = changes.flatMap((change) => deliveriesOf(change, endpoints));
      // One statement for all, in the order given: WITH ORDINALITY keeps it for the identity's values.
      if (planned.length > 0) {
        await tx.run(
          `INSERT INTO webhook_deliveries (id, endpoint_id, pet_id, type, body, created_at_ms)
           SELECT d->>'id', d->>'endpoint_id', (d->>'pet_id')::bigint, d->>'type', d->>'body',
             (d->>'created_at_ms')::bigint
           FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS p(d, n)
           ORDER BY n
           ON CONFLICT (id) DO NOTHING`,
          [
            JSON.stringify(
              planned.map((d) => ({
                id: d.id,
                endpoint_id: d.endpointId,
                pet_id: String(d.petId),
                type: d.type,
                body: d.body,
                created_at_ms: d.createdAtMs,
              })),
            ),
          ],
        );
      }
      await tx.run('DELETE FROM event_outbox WHERE change_id = ANY($1::bigint[])', [
        `{${changes.map((c) => c.id).join(',')}}`,
      ]);
      return rows.length;
    });
  }

  lease(
    nowMs: number,
    max: number,
    leaseMs: number,
    perEndpoint = Number.MAX_SAFE_INTEGER,
    perHost?: number,
  ): Promise<readonly LeasedDelivery[]> {
    const leaseUntilMs = nowMs + leaseMs;
    return this.db.transaction(async (tx) => {
      const [rows, byUrl] = await Promise.all([
        tx.rows<LeaseRow>(`SELECT ${LEASE_COLUMNS} ${fairDueHeads('$1', '$3')} LIMIT $2 FOR UPDATE OF d SKIP LOCKED`, [
          nowMs,
          leaseCandidates(max, perHost),
          perEndpoint,
        ]),
        perHost === undefined ? Promise.resolve([]) : tx.rows<[string, bigint]>(leasedByUrl('$1'), [nowMs]),
      ]);
      const leased = chooseLeased(
        rows.map((row) => leasedOfRow(row, leaseUntilMs)),
        max,
        perHost,
        byUrl,
      );
      if (leased.length === 0) return [];
      await tx.run('UPDATE webhook_deliveries SET lease_until_ms = $1 WHERE seq = ANY($2::bigint[])', [
        leaseUntilMs,
        `{${leased.map((d) => d.seq).join(',')}}`,
      ]);
      return leased;
    });
  }

  settle(delivery: LeasedDelivery, s: Settlement): Promise<void> {
    return this.db.transaction(async (tx) => {
      const settled = await tx.run(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, state = $1, next_attempt_ms = $2, lease_until_ms = 0
         WHERE seq = $3 AND state = 'pending' AND lease_until_ms = $4`,
        [stateAfter(s.delivered, s.nextAttemptMs), s.nextAttemptMs ?? 0, delivery.seq, delivery.leaseUntilMs],
      );
      if (settled === 0) return;
      await tx.run(
        `INSERT INTO webhook_attempts (delivery_seq, endpoint_id, attempt, at_ms, status, error)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [delivery.seq, delivery.endpointId, delivery.attempts + 1, s.atMs, s.status, s.error],
      );
      await tx.run(
        s.delivered
          ? 'UPDATE webhook_endpoints SET failing_since_ms = NULL WHERE id = $1'
          : `UPDATE webhook_endpoints SET failing_since_ms = coalesce(failing_since_ms, $2),
               enabled = enabled AND NOT $3 WHERE id = $1`,
        s.delivered ? [delivery.endpointId] : [delivery.endpointId, s.atMs, s.disableEndpoint],
      );
    });
  }

  async forgetSettled(beforeMs: number, max: number): Promise<number> {
    // The attempts go with their delivery (ON DELETE CASCADE).
    return this.db.run(
      `DELETE FROM webhook_deliveries WHERE seq IN (
         SELECT seq FROM webhook_deliveries WHERE state <> 'pending' AND created_at_ms < $1 LIMIT $2)`,
      [beforeMs, max],
    );
  }

  async stats(): Promise<OutboxStats> {
    const [row] = await this.db.rows<[bigint, bigint | null]>(
      `SELECT (SELECT count(*) FROM event_outbox) + (SELECT count(*) FROM webhook_deliveries WHERE state = 'pending'),
         least((SELECT min(c.at_ms) FROM event_outbox o JOIN stock_changes c ON c.id = o.change_id),
               (SELECT min(created_at_ms) FROM webhook_deliveries WHERE state = 'pending'))`,
    );
    const [depth, oldest] = row ?? [0n, null];
    return { depth: Number(depth), oldestAtMs: oldest === null ? null : Number(oldest) };
  }
}
