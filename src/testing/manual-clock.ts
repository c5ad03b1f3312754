import type { Clock } from '../application/ports/clock.js';

/** A clock that moves only when told, so tests need no sleeps. */
export class ManualClock implements Clock {
  constructor(public ms: number = Date.UTC(2026, 0, 1, 0, 0, 0)) {}

  nowMs(): number {
    return this.ms;
  }

  advance(ms: number): void {
    this.ms += ms;
  }
}
