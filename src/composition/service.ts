/**
 * The whole service as functions: {@link startService} runs the HTTP service as `npm start` does, and
 * {@link runAdminCommand} one admin command. src/main.ts (the `petstore` command) calls them.
 */
import { type Logger, pino } from 'pino';
import { runAdminCli } from '../adapters/cli/admin-cli.js';
import { RequestLineWriter } from '../adapters/http/request-line-writer.js';
import { describeUrl } from '../adapters/postgres/database-location.js';
import { createServiceMetrics } from '../adapters/prometheus/service-metrics.js';
import type { InventoryCore } from '../application/inventory-core.js';
import type { Clock } from '../application/ports/clock.js';
import type { WebhookAdmin } from '../application/webhook-core.js';
import type { Config } from './config.js';
import { seedDevelopment } from './development-seed.js';
import { type HttpListener, httpMetricsOf, type Readiness } from './http-listeners.js';
import { partsNotUp, type StopFailure } from './lifecycle.js';
import { limiterNameOf } from './limiters.js';
import { composeService, PART, serviceLifecycle } from './service-parts.js';
import { tracingParts, tracingStarted } from './tracing.js';

/** The longest a request's log line waits to be written with others (see RequestLineWriter). */
const ACCESS_LOG_DELAY_MS = 100;

/**
 * How long the server waits at start for the connections it opens (Redis) before it accepts: a request
 * served sooner would be limited in process only (fail-open) or refused (fail-closed).
 */
const STARTUP_WAIT_MS = 2_000;

/** A started service: where it listens, and how to stop it. */
export interface RunningService {
  /** `http://host:port`, the port picked when PORT=0. */
  readonly url: string;
  /**
   * Stops taking connections, answers every request in flight (up to the drain timeout), stops the
   * background work, closes the stores and writes out the log; `reason` goes into the log. Every part
   * is stopped even when one fails; then it rejects with an AggregateError naming those that did not
   * stop cleanly. Calling it again answers the same promise.
   */
  stop(reason: string): Promise<void>;
}

/**
 * Starts the service configured by `config` (see readConfig, which reads it from the environment like
 * `npm start`): storage, limiter, metrics, tracing when started, webhooks' dispatch, and the HTTP listener,
 * each a part of one lifecycle (see Lifecycle). Resolves once it listens. A start that fails stops what
 * it had opened, then rejects. Signals are the caller's: src/main.ts stops it on SIGTERM, SIGINT and SIGHUP.
 */
export async function startService(config: Config): Promise<RunningService> {
  // Asynchronous: a request never waits for its log line to be written.
  const destination = pino.destination({ dest: 1, sync: false });
  const logger = pino(
    {
      level: config.logLevel,
      // The request log never holds headers; this is the guard should any object carry one.
      redact: { paths: ['authorization', '*.authorization', '*.headers.authorization'], censor: '[redacted]' },
    },
    destination,
  );
  // The request line holds fixed fields (id, method, route template, status, time, key id) and never a
  // header: it is written as pino would write it, without the redaction (errors keep it), and its
  // lines reach the destination in batches, each line within ACCESS_LOG_DELAY_MS.
  const accessLogger = new RequestLineWriter(destination, { level: config.logLevel, maxDelayMs: ACCESS_LOG_DELAY_MS });
  const readiness: Readiness = { ready: false };
  const metrics = config.metrics ? createServiceMetrics() : undefined;
  // OpenTelemetry is started by src/tracing.ts (node --import), before the modules it patches load.
  const traced = tracingStarted() ? await tracingParts() : undefined;
  if (config.tracing !== undefined && traced === undefined) {
    logger.warn({}, 'tracing is off: OTEL_EXPORTER_OTLP_ENDPOINT needs node --import ./dist/tracing.js (npm start)');
  }
  const lifecycle = serviceLifecycle(config);
  let listener: HttpListener;
  try {
    const container = await composeService({
      config,
      lifecycle,
      logger,
      storage: { sqliteWriter: 'worker' },
      limiter: 'configured',
      metrics,
      tracing: traced,
      reach: {
        to: 'serve',
        http: { readiness, metrics: metrics && httpMetricsOf(metrics, config) },
        accessLogger,
      },
    });
    listener = container.get<HttpListener>(PART.httpListener);
    // Printed before listening, so that a port already taken cannot lose the key; the example follows
    // once the address is known (PORT=0 picks a free port).
    const seededKey = await seedIfEmpty(
      config,
      container.get<InventoryCore>(PART.core),
      container.get<() => boolean | Promise<boolean>>(PART.storageIsEmpty),
    );
    const down = await partsNotUp(lifecycle.healthChecks(), STARTUP_WAIT_MS);
    if (down.length > 0) logger.warn({ parts: down, waitedMs: STARTUP_WAIT_MS }, 'starting while some parts are down');
    await lifecycle.start();
    if (seededKey !== undefined) {
      process.stdout.write(`  curl -H "Authorization: Bearer ${seededKey}" ${listener.url}/v1/inventory\n\n`);
    }
  } catch (error) {
    logFailures(logger, await lifecycle.stop());
    await endLog(destination, config.drainTimeoutMs);
    throw error;
  }
  const limiter = limiterNameOf(config);
  const db = config.databaseUrl === undefined ? config.dbPath : describeUrl(config.databaseUrl);
  logger.info({ url: `${listener.url}/v1`, env: config.env, db, limiter }, 'listening');

  let stopped: Promise<void> | undefined;
  const stop = async (reason: string): Promise<void> => {
    logger.info({ signal: reason }, 'draining');
    const failures = await lifecycle.stop();
    logFailures(logger, failures);
    logger.info({}, 'stopped');
    await endLog(destination, config.drainTimeoutMs);
    throwIfAny(failures);
  };
  return {
    url: listener.url,
    stop: (reason) => {
      stopped ??= stop(reason);
      return stopped;
    },
  };
}

/**
 * In development, fills an empty store with demo pets and orders, and prints the key it made (shown
 * once); resolves to that key, or to undefined when nothing was seeded.
 */
async function seedIfEmpty(
  config: Config,
  core: InventoryCore,
  isEmpty: () => boolean | Promise<boolean>,
): Promise<string | undefined> {
  if (config.env !== 'development' || !(await isEmpty())) return undefined;
  const key = await seedDevelopment(core);
  process.stdout.write(
    [
      '',
      'Seeded an empty development database with demo pets and orders.',
      `Development API key (free plan; shown once, only its hash is stored): ${key}`,
      '',
    ].join('\n'),
  );
  return key;
}

/** Throws, naming the parts, when some stopped uncleanly: a store that did not close may have lost writes. */
function throwIfAny(failures: readonly StopFailure[]): void {
  if (failures.length === 0) return;
  const parts = failures.map((f) => f.part).join(', ');
  throw new AggregateError(
    failures.map((f) => f.error),
    `stopping failed: ${parts}`,
  );
}

/** Logs each part whose stop failed or was given up. */
function logFailures(logger: Logger, failures: readonly StopFailure[]): void {
  for (const { part, error } of failures) logger.error({ part, err: error }, 'a part did not stop cleanly');
}

/**
 * Writes out every log line still queued, then resolves; at most `timeoutMs`, so that a log reader
 * that stopped reading cannot hold the process forever. A flushSync at exit is not enough: a write
 * already handed to the thread pool (waiting on a full pipe) would be lost with the process.
 */
function endLog(destination: ReturnType<typeof pino.destination>, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const giveUp = setTimeout(resolve, timeoutMs);
    giveUp.unref();
    destination.once('close', () => {
      clearTimeout(giveUp);
      resolve();
    });
    destination.end();
  });
}

/**
 * Runs one admin command (`keys create --plan free`, ...) over the configured store; resolves to its exit
 * code. The store is a part of the same lifecycle as the server's: opened as the core is made, closed
 * once the command ends, whatever its outcome.
 */
export async function runAdminCommand(argv: readonly string[], config: Config): Promise<number> {
  const logger = pino({ level: 'silent' });
  const lifecycle = serviceLifecycle(config);
  let code: number;
  try {
    const container = await composeService({
      config,
      lifecycle,
      logger,
      storage: { sqliteWriter: 'inline' },
      limiter: 'in-process',
      reach: { to: 'core' },
    });
    await lifecycle.start();
    code = await runAdminCli(argv, {
      ...container.get<InventoryCore>(PART.core),
      clock: container.get<Clock>(PART.clock),
      webhooks: container.get<WebhookAdmin>(PART.webhookAdmin),
    });
  } catch (error) {
    await lifecycle.stop();
    throw error;
  }
  throwIfAny(await lifecycle.stop());
  return code;
}
