import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RequestLineWriter } from '../../src/adapters/http/request-line-writer.js';
import { createServiceMetrics } from '../../src/adapters/prometheus/service-metrics.js';
import { readConfig } from '../../src/composition/config.js';
import { Lifecycle, type Part } from '../../src/composition/lifecycle.js';
import { composeService, serviceLifecycle } from '../../src/composition/service-parts.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';

/** The parts service-parts.ts makes, in the order it is written: storage first, the API's listener last. */
const WRITTEN_ORDER = [
  'sqlite',
  'tracing',
  'rate limiter snapshot',
  'key uses',
  'outcome purge',
  'event dispatch',
  'metrics listener',
  'access log',
  'http listener',
];

let database: TempDatabase | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await database?.remove();
});

describe('the composition root', () => {
  it('makes every part of a served SQLite service in the written order, starts them so, and stops them in reverse', async () => {
    database = await tempDatabase();
    const config = readConfig({
      PETSTORE_ENV: 'production',
      PETSTORE_DB: database.path,
      HOST: '127.0.0.1',
      PORT: '0',
      PETSTORE_METRICS_PORT: '0',
      PETSTORE_LOG_LEVEL: 'silent',
    });
    const registered: string[] = [];
    const started: string[] = [];
    const stopped: string[] = [];
    // Each part as registered, its start and stop noted before they run (the part itself is its prototype).
    const register = Lifecycle.prototype.register;
    vi.spyOn(Lifecycle.prototype, 'register').mockImplementation(function (this: Lifecycle, part: Part) {
      registered.push(part.name);
      const { start } = part;
      const noted: Part = Object.create(part, {
        start: {
          value:
            start === undefined
              ? undefined
              : () => {
                  started.push(part.name);
                  return start.call(part);
                },
        },
        stop: {
          value: () => {
            stopped.push(part.name);
            return part.stop();
          },
        },
      });
      register.call(this, noted);
    });
    const logger = pino({ level: 'silent' });
    const lifecycle = serviceLifecycle(config);
    const readiness = { ready: false };
    await composeService({
      config,
      lifecycle,
      logger,
      storage: { sqliteWriter: 'inline' },
      limiter: 'configured',
      metrics: createServiceMetrics(),
      tracing: { ports: { port: (port) => port, shutdown: async () => {} }, requests: { describe: () => {} } },
      reach: {
        to: 'serve',
        http: { readiness },
        accessLogger: new RequestLineWriter(pino.destination({ dest: '/dev/null', sync: true }), {
          level: 'silent',
          maxDelayMs: 100,
        }),
      },
    });
    expect(registered).toEqual(WRITTEN_ORDER);
    await lifecycle.start();
    expect(readiness.ready).toBe(true);
    expect(started).toEqual(['key uses', 'outcome purge', 'event dispatch', 'metrics listener', 'http listener']);
    expect(await lifecycle.stop()).toEqual([]);
    expect(stopped).toEqual([...WRITTEN_ORDER].reverse());
  });
});
