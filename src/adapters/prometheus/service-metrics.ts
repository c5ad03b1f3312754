import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { OutboxStats } from '../../application/ports/webhook-store.js';
import {
  type CountableLimiter,
  countedRateLimiter,
  type DecisionLabel,
  type LimiterRole,
} from './counted-rate-limiter.js';
import { type AttemptCounter, eventMetrics } from './event-metrics.js';
import { SeriesHistogram } from './series-histogram.js';
import { type OperationTimers, timedPort } from './timed-port.js';

/** What a failover limiter counts of its outages since the process started (FailoverRateLimiter.status()). */
export interface FailoverCounters {
  /** True while the shared limiter answers. */
  readonly healthy: boolean;
  /** Calls of the shared limiter that failed. */
  readonly failures: number;
  /** Decisions the in-process fallback made while the shared limiter could not. */
  readonly fallbackDecisions: number;
  /** Requests refused because the shared limiter could not decide (fail-closed). */
  readonly unavailable: number;
}

/** The metrics of one service process, in one prom-client registry. */
export interface ServiceMetrics {
  /** The Prometheus text exposition: its content type, and the text of every metric now. */
  readonly exposition: { readonly contentType: string; text(): Promise<string> };
  /** Records one finished HTTP request; `route` is a route template or a fixed word, never a raw path. */
  readonly requests: { observe(method: string, route: string, status: number, seconds: number): void };
  /** Wraps a limiter so that its decisions are counted by outcome under `role`. */
  countLimiter(limiter: CountableLimiter, role: LimiterRole): CountableLimiter;
  /** Wraps a storage port so that every call is timed under `port` and the method's name. */
  timePort<T extends object>(port: T, name: string): T;
  /** Records the size of one group commit: the stock updates of SQLite's, the writes of PostgreSQL's. */
  observeGroupCommit(store: 'sqlite' | 'postgres', writes: number): void;
  /** Exports the counters of a failover limiter, read at each scrape. Call at most once. */
  watchFailover(status: () => FailoverCounters): void;
  /** Exports the stock events' metrics (see eventMetrics); answers the counter of attempts. Call at most once. */
  watchEvents(stats: () => Promise<OutboxStats>, nowMs: () => number): AttemptCounter;
}

const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const STORAGE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
const DECISIONS: readonly DecisionLabel[] = ['admitted', 'limited', 'banned'];

const requestLabels = (method: string, route: string, status: number) => ({ method, route, status: String(status) });

/** A counter whose value is read from elsewhere at each scrape. */
function readCounter(registry: Registry, name: string, help: string, read: () => number): void {
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

/**
 * Builds the registry: the process's default metrics, HTTP request durations by method, route template
 * and status, rate-limit decisions by outcome and limiter, storage operation durations, and group-commit
 * sizes. Label values come only from fixed sets and route templates: never a raw path, a key or a key id,
 * so a client cannot grow the number of series.
 */
export function createServiceMetrics(): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  // The three metrics touched on every request keep their series in plain objects, found once: see
  // SeriesHistogram. Their label sets are bounded (methods, templates, statuses; ports and methods; the
  // outcomes of each limiter), and so are the maps.
  const requestDuration = new SeriesHistogram(
    'petstore_http_request_duration_seconds',
    'Time from the request reaching the app to its response ending, by method, route template and status.',
    HTTP_BUCKETS,
    registry,
  );

  const decisionCounts = new Map<
    string,
    { readonly labels: { outcome: DecisionLabel; limiter: LimiterRole }; n: number }
  >();
  new Counter({
    name: 'petstore_rate_limit_decisions_total',
    help: 'Rate-limit decisions, by outcome (admitted, limited, banned) and by the limiter that made them.',
    labelNames: ['outcome', 'limiter'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { labels, n } of decisionCounts.values()) this.inc(labels, n);
    },
  });

  const storageDuration = new SeriesHistogram(
    'petstore_storage_operation_duration_seconds',
    'Time of storage port calls (a listing: the time its chunks took to produce), by port, operation and outcome.',
    STORAGE_BUCKETS,
    registry,
  );

  const groupCommits = new Histogram({
    name: 'petstore_sqlite_group_commit_updates',
    help: 'Stock updates committed together in one SQLite transaction (group-commit batch size).',
    buckets: BATCH_BUCKETS,
    registers: [registry],
  });
  const postgresGroups = new Histogram({
    name: 'petstore_postgres_group_commit_writes',
    help: 'Writes (stock and reservation) committed together in one PostgreSQL transaction (group size).',
    buckets: BATCH_BUCKETS,
    registers: [registry],
  });

  return {
    exposition: { contentType: registry.contentType, text: () => registry.metrics() },
    requests: {
      observe(method, route, status, seconds) {
        requestDuration.seriesOfParts(method, route, status, requestLabels).observe(seconds);
      },
    },
    countLimiter(limiter, role) {
      // Every outcome of the limiter is exported from the start, at 0, so a rate over it is defined.
      const counts = new Map(
        DECISIONS.map((outcome) => {
          const count = { labels: { outcome, limiter: role }, n: 0 };
          decisionCounts.set(`${outcome} ${role}`, count);
          return [outcome, count];
        }),
      );
      return countedRateLimiter(limiter, (label) => {
        const count = counts.get(label);
        if (count !== undefined) count.n += 1;
      });
    },
    timePort(port, name) {
      const series = (operation: string, outcome: string) =>
        storageDuration.seriesOf(`${name} ${operation} ${outcome}`, { port: name, operation, outcome });
      return timedPort(
        port,
        (operation): OperationTimers => ({ ok: series(operation, 'ok'), error: series(operation, 'error') }),
      );
    },
    observeGroupCommit(store, writes) {
      (store === 'sqlite' ? groupCommits : postgresGroups).observe(writes);
    },
    watchEvents: (stats, nowMs) => eventMetrics(registry, stats, nowMs),
    watchFailover(status) {
      readCounter(
        registry,
        'petstore_rate_limiter_fallback_decisions_total',
        'Decisions the in-process fallback made while Redis could not (fail-open).',
        () => status().fallbackDecisions,
      );
      readCounter(
        registry,
        'petstore_rate_limiter_redis_failures_total',
        'Calls of the Redis limiter that failed (errors and timeouts); each one sends decisions to the fallback.',
        () => status().failures,
      );
      readCounter(
        registry,
        'petstore_rate_limiter_unavailable_total',
        'Requests answered 503 because Redis could not decide (fail-closed).',
        () => status().unavailable,
      );
      new Gauge({
        name: 'petstore_rate_limiter_redis_up',
        help: '1 while the Redis limiter answers, 0 while decisions go to the fallback (or are refused).',
        registers: [registry],
        collect() {
          this.set(status().healthy ? 1 : 0);
        },
      });
    },
  };
}
