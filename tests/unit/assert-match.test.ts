import { AssertionError } from 'node:assert';
import { describe, expect, it } from 'vitest';
import { assertMatches } from '../../src/testing/assert-match.js';

// The contract suites state the fields they check with assertMatches: it must fail where they differ.
describe('assertMatches, the suites’ check of the fields named', () => {
  const result = { ok: false, error: { code: 'insufficient_stock', refusals: [{ index: 1, petId: 2n, delta: -3 }] } };

  it('passes when every field named holds, whatever else the value holds', () => {
    expect(() => assertMatches(result, { ok: false, error: { refusals: [{ petId: 2n }] } })).not.toThrow();
  });

  it('fails on a field of another value, of another type, or missing', () => {
    expect(() => assertMatches(result, { error: { code: 'pet_not_found' } })).toThrow(AssertionError);
    expect(() => assertMatches(result, { error: { refusals: [{ petId: 2 }] } })).toThrow(AssertionError);
    expect(() => assertMatches(result, { error: { replayed: false } })).toThrow(AssertionError);
    expect(() => assertMatches(undefined, { ok: false })).toThrow(AssertionError);
  });

  it('fails on an array of another length, longer or shorter', () => {
    expect(() => assertMatches(result, { error: { refusals: [] } })).toThrow(AssertionError);
    expect(() => assertMatches(result, { error: { refusals: [{ index: 1 }, { index: 2 }] } })).toThrow(AssertionError);
    expect(() => assertMatches([{ a: 1 }, { a: 2 }], [{ a: 1 }])).toThrow(AssertionError);
  });

  it('names the field that differs in its message', () => {
    expect(() => assertMatches(result, { error: { code: 'pet_not_found' } })).toThrow(/pet_not_found/);
  });
});
