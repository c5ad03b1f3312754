import { ContainerModule } from 'inversify';
import { createMemoryStorage } from '../adapters/memory/memory-adapters.js';
import { MemoryRateLimiter } from '../adapters/memory/memory-rate-limiter.js';
import { bindInstrumentedPorts } from './instrumentation.js';
import { bindResolved, TOKENS, token } from './tokens.js';

const MEMORY = token<ReturnType<typeof createMemoryStorage>>('MemoryStorage');

/**
 * Storage in process memory: for tests and embedding; nothing survives a restart. It holds nothing open,
 * so it is no part of the lifecycle. What the core gets: the store's ports, timed when metrics are on and
 * a span a call when tracing runs.
 */
export const memoryStorageModule = () =>
  new ContainerModule((options) => {
    bindResolved(options, MEMORY, [], () => createMemoryStorage());
    bindInstrumentedPorts(options, MEMORY);
    bindResolved(options, TOKENS.storageIsEmpty, [MEMORY], (s) => s.isEmpty);
  });

/** The in-process limiter: exact for one process; the default when no REDIS_URL is set. */
export const memoryLimiterModule = () =>
  new ContainerModule((options) => {
    bindResolved(
      options,
      TOKENS.limiter,
      [TOKENS.clock, TOKENS.banPolicy, TOKENS.instrumentation],
      (clock, banPolicy, instrumentation) =>
        instrumentation.rateLimiter(instrumentation.limiter(new MemoryRateLimiter(clock, { banPolicy }), 'memory')),
    );
  });
