import type { Clock } from '../../application/ports/clock.js';

/** The machine's wall clock: what a store reads reservations at unless it is given another clock. */
export const wallClock: Clock = { nowMs: () => Date.now() };
