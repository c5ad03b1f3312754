import type { Logger } from 'pino';
import type { InventoryCore } from '../application/inventory-core.js';
import type { Part } from './lifecycle.js';

/** How often expired idempotency outcomes are looked for: once a minute. */
const OUTCOME_PURGE_EVERY_MS = 60_000;

/**
 * How often lapsed reservations are marked expired: every 10 s. What is reserved never waits for it; a
 * lapsed hold left unmarked only costs the reads of its pet a look at its holds.
 */
const RESERVATION_EXPIRY_EVERY_MS = 10_000;

/**
 * Runs `task` every `everyMs`, off the request path, one run at a time (a slow store must not pile runs
 * up). A count above 0 is logged with `done`; a failure is logged with `failed` and tried again at the
 * next tick. Returns the function that stops the timer.
 */
export function every(everyMs: number, task: () => Promise<number>, logger: Logger, done: string, failed: string) {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    task()
      .then((count) => {
        if (count > 0) logger.info({ count }, done);
      })
      .catch((err: unknown) => logger.error({ err }, failed))
      .finally(() => {
        running = false;
      });
  }, everyMs);
  // The timer alone must not keep the process alive.
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Forgets expired idempotency outcomes, and marks lapsed reservations expired, on timers, off the
 * request path and in small batches (see ForgetExpiredOutcomes, ExpireReservations), so the tables stay
 * the size of a day's keyed writes and of the holds under way. A record kept longer only costs space:
 * a retry after its expiry is treated as new either way, and an expired hold counts for nothing either
 * way. It also releases the holds of keys that ended (see ReleaseEndedKeysHolds). A part: its start
 * sets the timers, its stop clears them.
 */
export function outcomePurge(
  core: Pick<InventoryCore, 'forgetExpiredOutcomes' | 'expireReservations' | 'releaseEndedKeysHolds'>,
  logger: Logger,
): Part {
  let stops: readonly (() => void)[] = [];
  return {
    name: 'outcome purge',
    start: () => {
      stops = [
        every(
          OUTCOME_PURGE_EVERY_MS,
          () => core.forgetExpiredOutcomes.execute(),
          logger,
          'forgot expired idempotency outcomes',
          'forgetting expired idempotency outcomes failed',
        ),
        every(
          RESERVATION_EXPIRY_EVERY_MS,
          () => core.expireReservations.execute(),
          logger,
          'marked lapsed reservations expired',
          'marking lapsed reservations expired failed',
        ),
        // A key revoked by the CLI releases its holds at once; one that expires, or whose roll's grace
        // ends, has no moment that runs anything: its holds are released here, within this period of its end.
        every(
          RESERVATION_EXPIRY_EVERY_MS,
          () => core.releaseEndedKeysHolds.execute(),
          logger,
          'released the holds of keys no longer in use',
          'releasing the holds of keys no longer in use failed',
        ),
      ];
    },
    stop: () => {
      for (const stop of stops) stop();
    },
  };
}
