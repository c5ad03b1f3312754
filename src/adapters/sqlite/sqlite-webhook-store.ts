import type { Database, Statement, Transaction } from 'better-sqlite3';
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
import { changeOfRow, type FeedRow } from './sqlite-stock-change-feed.js';
import { COLUMNS } from './sqlite-stock-change-log.js';

/**
 * Webhooks in the SQLite file. The outbox is filled by a trigger in each change's transaction (see
 * migration 6); routing and leasing run in IMMEDIATE transactions, which hold the file's write lock,
 * so two processes sharing the file never route the same entry nor lease the same delivery.
 */
export class SqliteWebhookStore implements WebhookStore {
  private readonly insertEndpoint: Statement<[string, string, string, string, number | null, number]>;
  private readonly allEndpoints: Statement<[], EndpointRow>;
  private readonly oneEndpoint: Statement<[string], EndpointRow>;
  private readonly deleteEndpoint: Statement<[string]>;
  private readonly enable: Statement<[string]>;
  private readonly recentAttempts: Statement<[string, number], AttemptRow>;
  private readonly routeNow: Transaction<(max: number) => number>;
  private readonly leaseNow: Transaction<
    (nowMs: number, max: number, leaseMs: number, perEndpoint: number, perHost: number | undefined) => LeasedDelivery[]
  >;
  private readonly settleNow: Transaction<(delivery: LeasedDelivery, settlement: Settlement) => void>;
  private readonly depth: Statement<[], [bigint, bigint | null]>;
  private readonly anyQueued: Statement<[], bigint>;
  private readonly anyPending: Statement<[], bigint>;
  private readonly forgetSettledNow: Statement<[number, number]>;

  constructor(db: Database) {
    this.insertEndpoint = db.prepare(
      `INSERT INTO webhook_endpoints (id, url, secret, events, low_stock_threshold, created_at_ms)
       VALUES (?, ?, ?, ?, ?, ?)`,
    );
    this.allEndpoints = db
      .prepare<[], EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints ORDER BY created_at_ms, id`)
      .raw();
    this.oneEndpoint = db
      .prepare<[string], EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = ?`)
      .raw();
    this.deleteEndpoint = db.prepare('DELETE FROM webhook_endpoints WHERE id = ?');
    this.enable = db.prepare('UPDATE webhook_endpoints SET enabled = 1, failing_since_ms = NULL WHERE id = ?');
    this.recentAttempts = db
      .prepare<[string, number], AttemptRow>(
        `SELECT ${ATTEMPT_COLUMNS} FROM webhook_attempts a JOIN webhook_deliveries d ON d.seq = a.delivery_seq
         WHERE a.endpoint_id = ? ORDER BY a.seq DESC LIMIT ?`,
      )
      .raw();
    this.anyQueued = db.prepare<[], bigint>('SELECT 1 FROM event_outbox LIMIT 1').pluck();
    this.anyPending = db
      .prepare<[], bigint>("SELECT 1 FROM webhook_deliveries WHERE state = 'pending' LIMIT 1")
      .pluck();
    // The attempts go with their delivery (ON DELETE CASCADE; the store turns foreign keys on).
    this.forgetSettledNow = db.prepare<[number, number]>(
      `DELETE FROM webhook_deliveries WHERE seq IN (
         SELECT seq FROM webhook_deliveries WHERE state <> 'pending' AND created_at_ms < ? LIMIT ?)`,
    );
    this.routeNow = this.routing(db);
    this.leaseNow = this.leasing(db);
    this.settleNow = this.settling(db);
    this.depth = db
      .prepare<[], [bigint, bigint | null]>(
        `SELECT (SELECT count(*) FROM event_outbox) + (SELECT count(*) FROM webhook_deliveries WHERE state = 'pending'),
           (SELECT min(at_ms) FROM (
              SELECT c.at_ms FROM event_outbox o JOIN stock_changes c ON c.seq = o.change_seq
              UNION ALL SELECT min(created_at_ms) FROM webhook_deliveries WHERE state = 'pending'))`,
      )
      .raw();
  }

  private routing(db: Database): Transaction<(max: number) => number> {
    const outbox = db
      .prepare<[number], FeedRow>(
        `SELECT c.pet_id, ${COLUMNS.split(', ')
          .map((column) => `c.${column}`)
          .join(', ')}
         FROM event_outbox o JOIN stock_changes c ON c.seq = o.change_seq ORDER BY o.change_seq LIMIT ?`,
      )
      .raw();
    const enabled = db
      .prepare<[], EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE enabled = 1`)
      .raw();
    const queue = db.prepare<[string, string, bigint, string, string, number]>(
      `INSERT OR IGNORE INTO webhook_deliveries (id, endpoint_id, pet_id, type, body, created_at_ms)
       VALUES (?, ?, ?, ?, ?, ?)`,
    );
    const routed = db.prepare<[bigint]>('DELETE FROM event_outbox WHERE change_seq = ?');
    return db.transaction((max: number) => {
      const rows = outbox.all(max);
      if (rows.length === 0) return 0;
      const endpoints = enabled.all().map(endpointOfRow);
      for (const row of rows) {
        const change = changeOfRow(row);
        for (const d of deliveriesOf(change, endpoints)) {
          queue.run(d.id, d.endpointId, d.petId, d.type, d.body, d.createdAtMs);
        }
        routed.run(change.id);
      }
      return rows.length;
    });
  }

  private leasing(
    db: Database,
  ): Transaction<
    (nowMs: number, max: number, leaseMs: number, perEndpoint: number, perHost: number | undefined) => LeasedDelivery[]
  > {
    const due = db
      .prepare<[{ now: number; max: number; per: number }], LeaseRow>(
        `SELECT ${LEASE_COLUMNS} ${fairDueHeads('$now', '$per')} LIMIT $max`,
      )
      .raw();
    const byUrl = db.prepare<[{ now: number }], [string, number | bigint]>(leasedByUrl('$now')).raw();
    const take = db.prepare<[number, bigint]>('UPDATE webhook_deliveries SET lease_until_ms = ? WHERE seq = ?');
    return db.transaction((nowMs: number, max: number, leaseMs: number, perEndpoint: number, perHost?: number) =>
      chooseLeased(
        due
          .all({ now: nowMs, max: leaseCandidates(max, perHost), per: perEndpoint })
          .map((row) => leasedOfRow(row, nowMs + leaseMs)),
        max,
        perHost,
        perHost === undefined ? [] : byUrl.all({ now: nowMs }),
      ).map((leased) => {
        take.run(leased.leaseUntilMs, leased.seq);
        return leased;
      }),
    );
  }

  private settling(db: Database): Transaction<(delivery: LeasedDelivery, settlement: Settlement) => void> {
    const settle = db.prepare<[string, number, bigint, number]>(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, state = ?, next_attempt_ms = ?, lease_until_ms = 0
       WHERE seq = ? AND state = 'pending' AND lease_until_ms = ?`,
    );
    const record = db.prepare<[bigint, string, number, number, number | null, string | null]>(
      `INSERT INTO webhook_attempts (delivery_seq, endpoint_id, attempt, at_ms, status, error) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    const succeeded = db.prepare<[string]>('UPDATE webhook_endpoints SET failing_since_ms = NULL WHERE id = ?');
    const failed = db.prepare<[number, number, string]>(
      `UPDATE webhook_endpoints SET failing_since_ms = coalesce(failing_since_ms, ?),
         enabled = enabled AND NOT ? WHERE id = ?`,
    );
    return db.transaction((delivery: LeasedDelivery, s: Settlement) => {
      const state = stateAfter(s.delivered, s.nextAttemptMs);
      if (settle.run(state, s.nextAttemptMs ?? 0, delivery.seq, delivery.leaseUntilMs).changes === 0) return;
      record.run(delivery.seq, delivery.endpointId, delivery.attempts + 1, s.atMs, s.status, s.error);
      if (s.delivered) succeeded.run(delivery.endpointId);
      else failed.run(s.atMs, s.disableEndpoint ? 1 : 0, delivery.endpointId);
    });
  }

  async addEndpoint(e: NewWebhookEndpoint): Promise<void> {
    this.insertEndpoint.run(e.id, e.url, e.secret, eventsColumn(e.events), e.lowStockThreshold, e.createdAtMs);
  }

  async endpoints(): Promise<readonly WebhookEndpoint[]> {
    return this.allEndpoints.all().map(endpointOfRow);
  }

  async removeEndpoint(id: string): Promise<boolean> {
    return this.deleteEndpoint.run(id).changes > 0;
  }

  async enableEndpoint(id: string): Promise<WebhookEndpoint | undefined> {
    this.enable.run(id);
    const row = this.oneEndpoint.get(id);
    return row === undefined ? undefined : endpointOfRow(row);
  }

  async attempts(endpointId: string, limit: number): Promise<readonly DeliveryAttempt[] | undefined> {
    if (this.oneEndpoint.get(endpointId) === undefined) return undefined;
    return this.recentAttempts.all(endpointId, limit).map(attemptOfRow);
  }

  // Each looks first without the write lock: an idle round must not wait for the stock writer's lock.
  async route(max: number): Promise<number> {
    return this.anyQueued.get() === undefined ? 0 : this.routeNow.immediate(max);
  }

  async lease(
    nowMs: number,
    max: number,
    leaseMs: number,
    perEndpoint = Number.MAX_SAFE_INTEGER,
    perHost?: number,
  ): Promise<readonly LeasedDelivery[]> {
    return this.anyPending.get() === undefined
      ? []
      : this.leaseNow.immediate(nowMs, max, leaseMs, perEndpoint, perHost);
  }

  async settle(delivery: LeasedDelivery, settlement: Settlement): Promise<void> {
    this.settleNow.immediate(delivery, settlement);
  }

  async forgetSettled(beforeMs: number, max: number): Promise<number> {
    return this.forgetSettledNow.run(beforeMs, max).changes;
  }

  async stats(): Promise<OutboxStats> {
    const [depth, oldest] = this.depth.get() ?? [0n, null];
    return { depth: Number(depth), oldestAtMs: oldest === null ? null : Number(oldest) };
  }
}
