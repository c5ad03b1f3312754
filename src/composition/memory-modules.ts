import { ContainerModule } from 'inversify';
import { createMemoryStorage } from '../adapters/memory/memory-adapters.js';
import { MemoryRateLimiter } from '../adapters/memory/memory-rate-limiter.js';
import { bindResolved, id, TOKENS } from './tokens.js';

/** Storage in process memory: for tests and embedding; nothing survives a restart. */
export const memoryStorageModule = () =>
  new ContainerModule(({ bind }) => {
    const storage = createMemoryStorage();
    bind(id(TOKENS.inventory)).toConstantValue(storage.inventory);
    bind(id(TOKENS.changes)).toConstantValue(storage.changes);
    bind(id(TOKENS.feed)).toConstantValue(storage.feed);
    bind(id(TOKENS.webhooks)).toConstantValue(storage.webhooks);
    bind(id(TOKENS.pets)).toConstantValue(storage.pets);
    bind(id(TOKENS.orders)).toConstantValue(storage.orders);
    bind(id(TOKENS.keys)).toConstantValue(storage.keys);
    bind(id(TOKENS.storageIsEmpty)).toConstantValue(storage.isEmpty);
  });

/** The in-process limiter: exact for one process; the default when no REDIS_URL is set. */
export const memoryLimiterModule = () =>
  new ContainerModule((options) => {
    bindResolved(
      options,
      TOKENS.limiter,
      [TOKENS.clock, TOKENS.banPolicy, TOKENS.instrumentation],
      (clock, banPolicy, instrumentation) =>
        instrumentation.limiter(new MemoryRateLimiter(clock, { banPolicy }), 'memory'),
    );
  });
