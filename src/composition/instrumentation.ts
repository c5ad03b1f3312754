import { ContainerModule, type ContainerModuleLoadOptions } from 'inversify';
import type { ServiceMetrics } from '../adapters/prometheus/service-metrics.js';
import type { ApiKeyStore } from '../application/ports/api-key-store.js';
import type { Clock } from '../application/ports/clock.js';
import { bindPart } from './lifecycle.js';
import {
  bindResolved,
  type Instrumentation,
  id,
  type Resolved,
  type StoragePortName,
  TOKENS,
  type Token,
  token,
} from './tokens.js';

/** What tracing gives the container: a span around each call of a port, and the SDK's shutdown. */
export interface PortTracing {
  /** Wraps `port` so that each call is a span `<name>.<method>`, the active span while it works. */
  port<T extends object>(port: T, name: string): T;
  /** Exports the spans still buffered, and stops the SDK. */
  shutdown(): Promise<void>;
}

const TRACING = token<PortTracing>('PortTracing');

/**
 * The instrumentation of `metrics` and `tracing`, either of which may be absent: a storage port is timed
 * first, then traced (the span covers the timing), a limiter counted, the limiter the core gets traced.
 */
export function instrumentationOf(
  metrics: ServiceMetrics | undefined,
  tracing: PortTracing | undefined,
): Instrumentation {
  return {
    storagePort: (port, name) => {
      const timed = metrics === undefined ? port : metrics.timePort(port, name);
      return tracing === undefined ? timed : tracing.port(timed, name);
    },
    limiter: (limiter, role) => (metrics === undefined ? limiter : metrics.countLimiter(limiter, role)),
    rateLimiter: (limiter) => (tracing === undefined ? limiter : tracing.port(limiter, 'rate_limiter')),
    failover: (status) => metrics?.watchFailover(status),
    groupCommit: (updates) => metrics?.observeGroupCommit(updates),
  };
}

/**
 * Binds the instrumentation every module puts around what it binds. With tracing, the SDK is a part of
 * the lifecycle: its stop exports what is still buffered.
 */
export const instrumentationModule = (metrics: ServiceMetrics | undefined, tracing: PortTracing | undefined) =>
  new ContainerModule((options) => {
    if (tracing === undefined) {
      options.bind(id(TOKENS.instrumentation)).toConstantValue(instrumentationOf(metrics, undefined));
      return;
    }
    bindPart(
      options,
      TRACING,
      [TOKENS.logger],
      () => tracing,
      (sdk, logger) => ({
        name: 'tracing',
        // Traces are best effort (spans are dropped, never requests slowed): a collector that is down at
        // the stop loses the last spans, and the stop is still clean.
        stop: () =>
          sdk.shutdown().catch((err: unknown) => logger.warn({ err }, 'the last spans could not be exported')),
      }),
    );
    bindResolved(options, TOKENS.instrumentation, [TRACING], (sdk) => instrumentationOf(metrics, sdk));
  });

/** Every storage port, as a store gives them. */
export type StoragePorts = { readonly [N in StoragePortName]: PortOf<N> };

const STORAGE_PORT_NAMES: readonly StoragePortName[] = ['inventory', 'changes', 'feed', 'webhooks', 'pets', 'orders'];

/**
 * Binds every storage port to the port of the store `store` stands for, instrumented (see
 * Instrumentation.storagePort): what the core is given is the store's port, timed when metrics are on
 * and a span a call when tracing runs. `keysOf`, when given, puts something in front of the store's
 * keys (a cache), and that is what is instrumented.
 */
export function bindInstrumentedPorts<S extends StoragePorts>(
  options: ContainerModuleLoadOptions,
  store: Token<S>,
  keysOf?: (keys: ApiKeyStore, clock: Clock) => ApiKeyStore,
): void {
  for (const name of STORAGE_PORT_NAMES) bindInstrumentedPort(options, name, [store], (s) => s[name]);
  if (keysOf === undefined) bindInstrumentedPort(options, 'keys', [store], (s) => s.keys);
  else bindInstrumentedPort(options, 'keys', [store, TOKENS.clock], (s, clock) => keysOf(s.keys, clock));
}

/** Binds the storage port `name` to what `portOf` makes of `deps`, instrumented. */
function bindInstrumentedPort<N extends StoragePortName, const D extends readonly Token<unknown>[]>(
  { bind }: ContainerModuleLoadOptions,
  name: N,
  deps: D,
  portOf: (...values: Resolved<D>) => PortOf<N>,
): void {
  bind(id(TOKENS[name] as Token<PortOf<N>>))
    .toResolvedValue(
      (instrumentation: Instrumentation, ...values: unknown[]) =>
        instrumentation.storagePort(portOf(...(values as Resolved<D>)), name),
      [id(TOKENS.instrumentation), ...deps.map(id)],
    )
    .inSingletonScope();
}

/** The type the storage port `name` is bound to. */
type PortOf<N extends StoragePortName> = (typeof TOKENS)[N] extends Token<infer T> ? T & object : never;
