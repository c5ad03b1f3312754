import { Container, type ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import type { ServiceMetrics } from '../adapters/prometheus/service-metrics.js';
import type { Config } from './config.js';
import { coreModule } from './core-module.js';
import { instrumentationModule, type PortTracing } from './instrumentation.js';
import { LIFECYCLE, Lifecycle } from './lifecycle.js';
import { memoryLimiterModule, memoryStorageModule } from './memory-modules.js';
import { type HealthCheck, id, TOKENS, type Token } from './tokens.js';

/**
 * How long past the drain's own bound a part's stop may take before it is given up (see Lifecycle): the
 * HTTP listener's stop takes up to PETSTORE_DRAIN_TIMEOUT_MS, a webhook attempt under way 10 s.
 */
const STOP_MARGIN_MS = 5_000;

/** Which adapters fill the ports. */
export interface AdapterChoice {
  /** Memory (nothing survives a restart), or the module binding every storage port (see storageModuleOf). */
  readonly storage: 'memory' | ContainerModule;
  /** Extra modules: the rate limiter when not in-process, the HTTP app when serving. */
  readonly modules?: readonly ContainerModule[];
  /** Metrics to time the storage ports and count the limiters' decisions with; none when absent. */
  readonly metrics?: ServiceMetrics;
  /** Tracing to make a span of each call of a storage port or the limiter; none when absent. */
  readonly tracing?: PortTracing;
}

/**
 * Builds the container: configuration and logger, the lifecycle its parts register with, the
 * instrumentation, the core, storage, and the in-process limiter unless a module in `choice.modules`
 * binds another one. Nothing is opened until it is resolved.
 */
export function buildContainer(config: Config, logger: Logger, choice: AdapterChoice): Container {
  const container = new Container();
  container.bind(id(TOKENS.config)).toConstantValue(config);
  container.bind(id(TOKENS.logger)).toConstantValue(logger);
  container
    .bind(id(LIFECYCLE))
    .toConstantValue(new Lifecycle({ stopTimeoutMs: config.drainTimeoutMs + STOP_MARGIN_MS }));
  container.load(instrumentationModule(choice.metrics, choice.tracing));
  container.load(coreModule(config));
  container.load(choice.storage === 'memory' ? memoryStorageModule() : choice.storage);
  const extra = choice.modules ?? [];
  container.load(...extra);
  if (!container.isBound(id(TOKENS.limiter))) container.load(memoryLimiterModule());
  return container;
}

/** Resolves a typed token. Throws when what it is made from opens asynchronously (PostgreSQL): see resolveAsync. */
export const resolve = <T>(container: Container, t: Token<T>): T => container.get(id(t));

/** Resolves a typed token, waiting for what opens asynchronously (PostgreSQL's pool and migration). */
export const resolveAsync = <T>(container: Container, t: Token<T>): Promise<T> => container.getAsync(id(t));

/**
 * Waits, at most `timeoutMs`, for every part whose check can tell when it is up (see HealthCheck.whenUp);
 * resolves to the names of those that were not up by then.
 */
export async function partsNotUp(checks: readonly HealthCheck[], timeoutMs: number): Promise<string[]> {
  const up = await Promise.all(checks.map((check) => check.whenUp?.(timeoutMs) ?? true));
  return checks.filter((_, i) => !up[i]).map((check) => check.name);
}
