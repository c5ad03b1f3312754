/**
 * The exact reference a sliding-window limiter is checked against: the plain list of admitted request
 * times, with no buckets and no approximation.
 */

/** The most admitted requests that any interval of `windowMs` milliseconds holds. `times` ascending. */
export function mostInAnyWindow(times: readonly number[], windowMs: number): number {
  let most = 0;
  let first = 0;
  for (let last = 0; last < times.length; last += 1) {
    // The worst interval ending at times[last] is (times[last] - windowMs, times[last]].
    while ((times[first] as number) <= (times[last] as number) - windowMs) first += 1;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

/** How many of `times` (ascending) lie in (fromExclusive, toInclusive]. */
export function countBetween(times: readonly number[], fromExclusive: number, toInclusive: number): number {
  let n = 0;
  for (const t of times) if (t > fromExclusive && t <= toInclusive) n += 1;
  return n;
}
