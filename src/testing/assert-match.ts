import assert from 'node:assert/strict';

/**
 * Asserts that `actual` holds what `expected` names, and says where it does not: an object is compared
 * on `expected`'s keys only (its other fields are free), an array item by item and of the same length,
 * anything else strictly. The suites state a result's fields of interest this way, not its every field.
 */
export function assertMatches(actual: unknown, expected: unknown, message?: string): void {
  assert.deepEqual(namedPart(actual, expected), expected, message);
}

/** The part of `actual` that `expected` names, shaped like `expected`, so that a failure's diff is short. */
function namedPart(actual: unknown, expected: unknown): unknown {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return actual;
    return actual.map((item, i) => namedPart(item, expected[i]));
  }
  if (!isPlainObject(expected) || typeof actual !== 'object' || actual === null || Array.isArray(actual)) return actual;
  const part: Record<string, unknown> = {};
  // A key `actual` lacks stays out of the part, so the diff names it as missing.
  for (const key of Object.keys(expected)) {
    if (key in actual) part[key] = namedPart((actual as Record<string, unknown>)[key], expected[key]);
  }
  return part;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}
