import { Container, type ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { coreModule } from './core-module.js';
import { memoryLimiterModule, memoryStorageModule } from './memory-modules.js';
import { type Closeable, HEALTH_CHECKS, type HealthCheck, id, TOKENS, type Token } from './tokens.js';

/** Which adapters fill the ports. */
export interface AdapterChoice {
  /** Memory (nothing survives a restart), or the module binding every storage port (see storageModuleOf). */
  readonly storage: 'memory' | ContainerModule;
  /** Extra modules: the rate limiter when not in-process, the HTTP app when serving. */
  readonly modules?: readonly ContainerModule[];
}

/**
 * Builds the container: configuration and logger, the core, storage, and the in-process limiter unless
 * a module in `choice.modules` binds another one.
 */
export function buildContainer(config: Config, logger: Logger, choice: AdapterChoice): Container {
  const container = new Container();
  container.bind(id(TOKENS.config)).toConstantValue(config);
  container.bind(id(TOKENS.logger)).toConstantValue(logger);
  container.load(coreModule(config));
  container.load(choice.storage === 'memory' ? memoryStorageModule() : choice.storage);
  const extra = choice.modules ?? [];
  container.load(...extra);
  if (!container.isBound(id(TOKENS.limiter))) container.load(memoryLimiterModule());
  container
    .bind(id(HEALTH_CHECKS))
    .toDynamicValue(() => healthChecks(container))
    .inSingletonScope();
  return container;
}

/** Resolves a typed token. */
export const resolve = <T>(container: Container, t: Token<T>): T => container.get(id(t));

/** Every bound closeable, or none. */
export const closeables = (container: Container): readonly Closeable[] =>
  container.isBound(id(TOKENS.closeables)) ? container.getAll(id(TOKENS.closeables)) : [];

/**
 * Waits, at most `timeoutMs`, for every part whose check can tell when it is up (see HealthCheck.whenUp);
 * resolves to the names of those that were not up by then.
 */
export async function partsNotUp(checks: readonly HealthCheck[], timeoutMs: number): Promise<string[]> {
  const up = await Promise.all(checks.map((check) => check.whenUp?.(timeoutMs) ?? true));
  return checks.filter((_, i) => !up[i]).map((check) => check.name);
}

/** Every bound health check, or none. */
export const healthChecks = (container: Container): readonly HealthCheck[] =>
  container.isBound(id(TOKENS.healthChecks)) ? container.getAll(id(TOKENS.healthChecks)) : [];
