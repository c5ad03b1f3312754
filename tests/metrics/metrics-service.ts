import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createServiceMetrics } from '../../src/adapters/prometheus/service-metrics.js';
import type { InventoryCore } from '../../src/application/inventory-core.js';
import { readConfig } from '../../src/composition/config.js';
import type { HttpApp } from '../../src/composition/http-app.js';
import { httpMetricsOf } from '../../src/composition/http-listeners.js';
import { composeService, PART, serviceLifecycle } from '../../src/composition/service-parts.js';

/** The service as `main.ts serve` composes it with metrics on, listening on a free port of 127.0.0.1. */
export interface MeteredService {
  readonly origin: string;
  readonly core: InventoryCore;
  /** GET /metrics: the exposition's text, after checking its status and content type. */
  metrics(): Promise<string>;
  close(): Promise<void>;
}

export interface MeteredOptions {
  readonly storage: 'memory' | 'sqlite';
  /** Environment variables of the configuration (PETSTORE_DB for SQLite, REDIS_URL for the Redis limiter). */
  readonly env?: Readonly<Record<string, string>>;
}

export async function startMeteredService(options: MeteredOptions): Promise<MeteredService> {
  const config = readConfig({ PETSTORE_ENV: 'production', ...options.env });
  const metrics = createServiceMetrics();
  const logger = pino({ level: 'silent' });
  const lifecycle = serviceLifecycle(config);
  const container = await composeService({
    config,
    lifecycle,
    logger,
    storage: options.storage === 'memory' ? 'memory' : { sqliteWriter: 'worker' },
    limiter: 'configured',
    metrics,
    // Every reading fresh: these tests read the counters right after the requests they count.
    reach: { to: 'app', http: { readiness: { ready: true }, metrics: httpMetricsOf(metrics, config, 0) } },
  });
  const server: Server = createServer(container.get<HttpApp>(PART.httpApp).callback());
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    core: container.get<InventoryCore>(PART.core),
    async metrics() {
      const response = await fetch(`${origin}/metrics`);
      const text = await response.text();
      if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}: ${text}`);
      if (!response.headers.get('content-type')?.startsWith('text/plain; version=0.0.4')) {
        throw new Error(`GET /metrics answered ${response.headers.get('content-type')}`);
      }
      return text;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((done, fail) => server.close((error) => (error ? fail(error) : done())));
      const failures = await lifecycle.stop();
      if (failures.length > 0)
        throw new AggregateError(
          failures.map((f) => f.error),
          'stopping failed',
        );
    },
  };
}

/** The value of one sample of the exposition, e.g. `sample(text, 'x_total{a="b"}')`; undefined when absent. */
export function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
