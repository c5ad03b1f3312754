import { ContainerModule } from 'inversify';
import { MemoryRateLimiter } from '../adapters/memory/memory-rate-limiter.js';
import { bindPart } from './lifecycle.js';
import { SQLITE } from './sqlite-module.js';
import { bindResolved, TOKENS, token } from './tokens.js';

const LIMITER = token<MemoryRateLimiter>('MemoryRateLimiter');

/**
 * The in-process limiter of a served single instance, kept across graceful restarts in the SQLite file:
 * restored from the last snapshot when it is made, saved when the service stops (it is made from the
 * storage, so its part stops before the file closes). A crash saves nothing: the next start restores
 * the snapshot of the last graceful stop. Not for the admin CLI, which must not overwrite the server's
 * snapshot, and not with Redis, which keeps the shared state itself.
 */
export const limiterSnapshotModule = () =>
  new ContainerModule((options) => {
    bindPart(
      options,
      LIMITER,
      [TOKENS.clock, TOKENS.banPolicy, SQLITE, TOKENS.logger],
      (clock, banPolicy, storage, logger) => {
        const limiter = new MemoryRateLimiter(clock, { banPolicy });
        const { restored, skipped } = limiter.restore(storage.limiterSnapshot.load());
        logger.info({ subjects: restored, unreadable: skipped }, 'rate limiter state restored');
        return limiter;
      },
      (limiter, _clock, _banPolicy, storage, logger) => ({
        name: 'rate limiter snapshot',
        stop: () => {
          const subjects = storage.limiterSnapshot.save(limiter.serialise());
          logger.info({ subjects }, 'rate limiter state saved');
        },
      }),
    );
    bindResolved(options, TOKENS.limiter, [LIMITER, TOKENS.instrumentation], (limiter, instrumentation) =>
      instrumentation.rateLimiter(instrumentation.limiter(limiter, 'memory')),
    );
  });
