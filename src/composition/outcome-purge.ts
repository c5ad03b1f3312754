import type { Logger } from 'pino';
import type { InventoryCore } from '../application/inventory-core.js';

/** How often expired idempotency outcomes are looked for: once a minute. */
export const OUTCOME_PURGE_EVERY_MS = 60_000;

/**
 * Forgets expired idempotency outcomes on a timer, off the request path and in small batches (see
 * ForgetExpiredOutcomes), so the table stays the size of a day's keyed writes. A failed purge is logged
 * and tried again at the next tick: a record kept longer only costs space, and a retry after its expiry
 * is treated as new either way. Returns the function that stops the timer.
 */
export function startOutcomePurge(core: Pick<InventoryCore, 'forgetExpiredOutcomes'>, logger: Logger): () => void {
  let running = false;
  const timer = setInterval(() => {
    // One purge at a time: a slow store must not pile purges up.
    if (running) return;
    running = true;
    core.forgetExpiredOutcomes
      .execute()
      .then((forgotten) => {
        if (forgotten > 0) logger.info({ forgotten }, 'forgot expired idempotency outcomes');
      })
      .catch((err: unknown) => logger.error({ err }, 'forgetting expired idempotency outcomes failed'))
      .finally(() => {
        running = false;
      });
  }, OUTCOME_PURGE_EVERY_MS);
  // The timer alone must not keep the process alive.
  timer.unref();
  return () => clearInterval(timer);
}
