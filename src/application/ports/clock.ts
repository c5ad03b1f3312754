/** The time, injected so that tests control it. */
export interface Clock {
  /** Unix milliseconds. */
  nowMs(): number;
}
