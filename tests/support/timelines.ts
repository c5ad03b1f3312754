import fc from 'fast-check';

/**
 * Random request timelines (ascending Unix ms) for a window of `bucketMs` buckets: bursts inside one
 * bucket, steady streams, pauses around a bucket edge and long idle gaps, mixed, so that refusals and
 * bucket expiry both happen often.
 */
export function timelineArbitrary(bucketMs: number, windowMs: number, maxLength: number): fc.Arbitrary<number[]> {
  const gap = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0, max: Math.max(1, Math.floor(bucketMs / 4)) }) },
    { weight: 3, arbitrary: fc.integer({ min: 0, max: bucketMs * 3 }) },
    { weight: 1, arbitrary: fc.integer({ min: windowMs - bucketMs, max: windowMs + 2 * bucketMs }) },
  );
  const start = fc.integer({ min: 0, max: 10 * windowMs }).map((offset) => Date.UTC(2026, 0, 1) + offset);
  return fc.tuple(start, fc.array(gap, { minLength: 1, maxLength, size: 'max' })).map(([t0, gaps]) => {
    let t = t0;
    return gaps.map((g) => {
      t += g;
      return t;
    });
  });
}
