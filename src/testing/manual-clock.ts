import type { Clock } from '../application/ports/clock.js';

/** A clock that moves only when told, so tests need no sleeps. */
export class ManualClock implements Clock {
  /** @param ms - the time it reads until moved, in ms since the epoch (2026-01-01 UTC by default) */
  constructor(public ms: number = Date.UTC(2026, 0, 1, 0, 0, 0)) {}

  /** The time it was set to or moved to. */
  nowMs(): number {
    return this.ms;
  }

  /** Moves the time forward by `ms`. */
  advance(ms: number): void {
    this.ms += ms;
  }
}
