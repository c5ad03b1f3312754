/**
 * The bucketed sliding window, as plain functions over a plain counter, so that the in-process
 * limiter and the Redis script run one algorithm and one test suite can check it.
 *
 * Time is cut into buckets of `bucketMs`; a window of `windowMs` spans B = windowMs / bucketMs of them.
 * A request at time t lies in bucket k = floor(t / bucketMs) and is admitted only while the buckets
 * k-B .. k (B+1 of them) hold fewer than `limit` admitted requests. Any interval of length windowMs
 * that ends at t starts after (k-B) * bucketMs, so it lies inside those B+1 buckets: no interval of the
 * window's length can ever hold more than `limit` admitted requests. The price is that a request may be
 * refused up to one bucket early. Memory is bounded by B+1 buckets, whatever the limit.
 */
export interface WindowSpec {
  readonly name: string;
  readonly windowMs: number;
  readonly bucketMs: number;
}

export const MINUTE_WINDOW: WindowSpec = { name: 'minute', windowMs: 60_000, bucketMs: 1_000 };
export const DAY_WINDOW: WindowSpec = { name: 'day', windowMs: 86_400_000, bucketMs: 300_000 };

/** Admitted requests per bucket index, oldest first, for the buckets that may still count. */
export interface WindowCounter {
  readonly buckets: Map<number, number>;
  total: number;
  /** The newest bucket written; a clock that steps back still writes here, to keep buckets ordered. */
  newest: number;
}

export const newWindowCounter = (): WindowCounter => ({
  buckets: new Map(),
  total: 0,
  newest: Number.NEGATIVE_INFINITY,
});

const spanOf = (spec: WindowSpec): number => spec.windowMs / spec.bucketMs;

/** Drops the buckets that no longer count at `nowMs`. */
export function expireBuckets(counter: WindowCounter, spec: WindowSpec, nowMs: number): void {
  const oldestCounted = Math.floor(nowMs / spec.bucketMs) - spanOf(spec);
  // Map iteration follows insertion order, which `countRequest` keeps equal to bucket order.
  for (const [bucket, count] of counter.buckets) {
    if (bucket >= oldestCounted) break;
    counter.buckets.delete(bucket);
    counter.total -= count;
  }
  // With nothing left to keep in order, a clock that stepped back may count in its own bucket again.
  if (counter.buckets.size === 0) counter.newest = Number.NEGATIVE_INFINITY;
}

/** Counts one admitted request at `nowMs`. Call `expireBuckets` first. */
export function countRequest(counter: WindowCounter, spec: WindowSpec, nowMs: number): void {
  const bucket = Math.max(Math.floor(nowMs / spec.bucketMs), counter.newest);
  counter.newest = bucket;
  counter.buckets.set(bucket, (counter.buckets.get(bucket) ?? 0) + 1);
  counter.total += 1;
}

/**
 * When the number of requests this window still admits next rises above what it is at `nowMs`: the
 * moment enough old buckets leave the window. With nothing counted, that is `nowMs`. Call
 * `expireBuckets` first.
 */
export function nextRiseMs(counter: WindowCounter, spec: WindowSpec, limit: number, nowMs: number): number {
  const threshold = Math.min(counter.total, limit);
  if (threshold === 0) return nowMs;
  let left = counter.total;
  for (const [bucket, count] of counter.buckets) {
    left -= count;
    if (left < threshold) return (bucket + spanOf(spec) + 1) * spec.bucketMs;
  }
  return nowMs;
}

/** How many more requests the window admits now. Call `expireBuckets` first. */
export const remainingIn = (counter: WindowCounter, limit: number): number => Math.max(0, limit - counter.total);
