/** The machine's wall clock, shared with the stores' default (see wall-clock.ts). */
export { wallClock as systemClock } from '../web/wall-clock.js';
