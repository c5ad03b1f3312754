/**
 * The composition root. `node dist/main.js serve` (npm start) runs the HTTP service; any other
 * arguments run the admin CLI (`npm run --silent petstore -- keys create --plan free`).
 */
import { pino } from 'pino';
import { isAdminCommand, runAdminCli } from './adapters/cli/admin-cli.js';
import { RequestLineWriter } from './adapters/http/request-line-writer.js';
import { describeUrl } from './adapters/postgres/postgres-storage.js';
import { createServiceMetrics } from './adapters/prometheus/service-metrics.js';
import { limiterModulesOf, limiterNameOf, storageModuleOf } from './composition/adapter-choice.js';
import { type Config, ConfigError, readConfig } from './composition/config.js';
import { buildContainer, closeables, healthChecks, partsNotUp, resolve } from './composition/container.js';
import { seedDevelopment } from './composition/development-seed.js';
import { startEventDispatch } from './composition/event-dispatch.js';
import { HTTP_APP, httpModule, type Readiness } from './composition/http-module.js';
import { listen } from './composition/http-server.js';
import { httpMetricsOf, listenForMetrics, metricsModule } from './composition/metrics-module.js';
import { startOutcomePurge } from './composition/outcome-purge.js';
import { TOKENS } from './composition/tokens.js';
import { tracingParts, tracingStarted } from './composition/tracing.js';

/** The longest a request's log line waits to be written with others (see RequestLineWriter). */
const ACCESS_LOG_DELAY_MS = 100;

/**
 * How long the server waits at start for the connections it opens (Redis) before it accepts: a request
 * served sooner would be limited in process only (fail-open) or refused (fail-closed).
 */
const STARTUP_WAIT_MS = 2_000;

async function serve(config: Config): Promise<void> {
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

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining');
    await running.drain();
    // Every request is answered: its line goes out before the line that says the service stopped.
    accessLogger.flush();
    await metricsServer?.drain();
    stopPurge();
    await dispatch.stop();
    for (const c of [...closeables(container)].reverse()) await c.close();
    logger.info({}, 'stopped');
    await endLog(destination, config.drainTimeoutMs);
    process.exit(0);
  };
  // SIGHUP too: a closed terminal or a supervisor's reload must not cut requests in flight. There is
  // no configuration to reload: the environment is read once.
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, () => void stop(signal));
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

async function admin(argv: readonly string[], config: Config): Promise<number> {
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

async function main(argv: readonly string[]): Promise<void> {
  let config: Config;
  try {
    config = readConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    process.exit(2);
  }
  if (argv[0] === 'serve') return serve(config);
  // Refused before the database is opened, so a typo creates no file.
  if (!isAdminCommand(argv)) {
    const what = argv[0] === undefined ? 'no command given' : `unknown command "${argv[0]}"`;
    process.stderr.write(`error: ${what}; run "serve" to start the service, or "--help" for the admin commands\n`);
    process.exit(1);
  }
  process.exitCode = await admin(argv, config);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
