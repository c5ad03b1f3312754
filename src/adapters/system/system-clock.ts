import type { Clock } from '../../application/ports/clock.js';

/** The machine's wall clock. */
export const systemClock: Clock = { nowMs: () => Date.now() };
