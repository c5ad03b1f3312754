/**
 * The whole service as functions: {@link startService} runs the HTTP service as `npm start` does, and
 * {@link runAdminCommand} one admin command. src/main.ts (the `petstore` command) calls them.
 */
import { pino } from 'pino';
import { runAdminCli } from '../adapters/cli/admin-cli.js';
import { RequestLineWriter } from '../adapters/http/request-line-writer.js';
import { describeUrl } from '../adapters/postgres/postgres-storage.js';
import { createServiceMetrics } from '../adapters/prometheus/service-metrics.js';
import { limiterModulesOf, limiterNameOf, storageModuleOf } from './adapter-choice.js';
import type { Config } from './config.js';
import { buildContainer, closeables, healthChecks, partsNotUp, resolve } from './container.js';
import { seedDevelopment } from './development-seed.js';
import { startEventDispatch } from './event-dispatch.js';
import { HTTP_APP, httpModule, type Readiness } from './http-module.js';
import { listen } from './http-server.js';
import { httpMetricsOf, listenForMetrics, metricsModule } from './metrics-module.js';
import { startOutcomePurge } from './outcome-purge.js';
import { TOKENS } from './tokens.js';
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
   * background work, closes the stores and writes out the log; `reason` goes into the log.
   */
  stop(reason: string): Promise<void>;
}

/**
 * Starts the service configured by `config` (see readConfig, which reads it from the environment like
 * `npm start`): storage, limiter, metrics, tracing when started, webhooks' dispatch, and the HTTP listener.
 * Resolves once it listens. Signals are the caller's: src/main.ts stops it on SIGTERM, SIGINT and SIGHUP.
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
  const measured = metrics === undefined ? [] : [metricsModule(metrics)];
  const httpMetrics = metrics === undefined ? undefined : httpMetricsOf(metrics, config);
  // OpenTelemetry is started by src/tracing.ts (node --import), before the modules it patches load.
  const traced = tracingStarted() ? await tracingParts() : undefined;
  if (config.tracing !== undefined && traced === undefined) {
    logger.warn({}, 'tracing is off: OTEL_EXPORTER_OTLP_ENDPOINT needs node --import ./dist/tracing.js (npm start)');
  }
  const container = buildContainer(config, logger, {
    storage: await storageModuleOf(config, logger, 'worker'),
    modules: [
      ...limiterModulesOf(config),
      ...measured,
      ...(traced === undefined ? [] : [traced.module]),
      httpModule(config, readiness, httpMetrics, accessLogger, traced?.requests),
    ],
  });
  const core = resolve(container, TOKENS.core);

  // Printed before listening, so that a port already taken cannot lose the key; the example follows
  // once the address is known (PORT=0 picks a free port).
  let seededKey: string | undefined;
  if (config.env === 'development' && (await resolve(container, TOKENS.storageIsEmpty)())) {
    seededKey = await seedDevelopment(core);
    process.stdout.write(
      [
        '',
        'Seeded an empty development database with demo pets and orders.',
        `Development API key (free plan; shown once, only its hash is stored): ${seededKey}`,
        '',
      ].join('\n'),
    );
  }

  const app = resolve(container, HTTP_APP);
  const down = await partsNotUp(healthChecks(container), STARTUP_WAIT_MS);
  if (down.length > 0) logger.warn({ parts: down, waitedMs: STARTUP_WAIT_MS }, 'starting while some parts are down');
  const metricsServer = metrics === undefined ? undefined : await listenForMetrics(metrics, config, logger);
  const running = await listen(app.callback(), {
    host: config.host,
    port: config.port,
    drainTimeoutMs: config.drainTimeoutMs,
    limits: config.connectionLimits,
    logger,
    setReady: (ready) => {
      readiness.ready = ready;
    },
  });
  readiness.ready = true;
  if (seededKey !== undefined) {
    process.stdout.write(`  curl -H "Authorization: Bearer ${seededKey}" ${running.url}/v1/inventory\n\n`);
  }
  const stopPurge = startOutcomePurge(core, logger);
  const webhooks = resolve(container, TOKENS.webhooks);
  const clock = resolve(container, TOKENS.clock);
  const dispatch = startEventDispatch(
    {
      webhooks,
      clock,
      logger,
      ...(metrics === undefined
        ? {}
        : {
            onAttempt: metrics.watchEvents(
              () => webhooks.stats(),
              () => clock.nowMs(),
            ),
          }),
    },
    config,
  );
  const limiter = limiterNameOf(config);
  const db = config.databaseUrl === undefined ? config.dbPath : describeUrl(config.databaseUrl);
  logger.info({ url: `${running.url}/v1`, env: config.env, db, limiter }, 'listening');

  let stopped: Promise<void> | undefined;
  const stop = async (reason: string): Promise<void> => {
    logger.info({ signal: reason }, 'draining');
    await running.drain();
    // Every request is answered: its line goes out before the line that says the service stopped.
    accessLogger.flush();
    await metricsServer?.drain();
    stopPurge();
    await dispatch.stop();
    for (const c of [...closeables(container)].reverse()) await c.close();
    logger.info({}, 'stopped');
    await endLog(destination, config.drainTimeoutMs);
  };
  return {
    url: running.url,
    stop: (reason) => {
      stopped ??= stop(reason);
      return stopped;
    },
  };
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

/** Runs one admin command (`keys create --plan free`, ...) over the configured store; resolves to its exit code. */
export async function runAdminCommand(argv: readonly string[], config: Config): Promise<number> {
  const logger = pino({ level: 'silent' });
  const container = buildContainer(config, logger, { storage: await storageModuleOf(config, logger, 'inline') });
  try {
    return await runAdminCli(argv, {
      ...resolve(container, TOKENS.core),
      clock: resolve(container, TOKENS.clock),
      webhooks: resolve(container, TOKENS.webhookAdmin),
    });
  } finally {
    for (const c of closeables(container)) await c.close();
  }
}
