import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { integerOfDecimal } from '../../src/domain/decimal-integer.js';

/** The exact value of a decimal literal as numerator and power of ten, by BigInt: the reference. */
function referenceOf(literal: string): number | undefined {
  const [mantissa = '', exponent = '0'] = literal.toLowerCase().split('e');
  const [whole = '', fraction = ''] = mantissa.split('.');
  let digits = BigInt(`${whole}${fraction}`.replace('-', '') || '0');
  let scale = Number(exponent) - fraction.length;
  while (scale < 0 && digits % 10n === 0n && digits !== 0n) {
    digits /= 10n;
    scale += 1;
  }
  if (scale < 0 && digits !== 0n) return undefined;
  const value = scale > 0 ? digits * 10n ** BigInt(scale) : digits;
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return literal.startsWith('-') && value !== 0n ? -Number(value) : Number(value);
}

const literal = fc
  .record({
    negative: fc.boolean(),
    whole: fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9][0-9]{0,20}$/)),
    fraction: fc.option(fc.stringMatching(/^[0-9]{1,20}$/), { nil: undefined }),
    exponent: fc.option(fc.integer({ min: -30, max: 30 }), { nil: undefined }),
  })
  .map(
    ({ negative, whole, fraction, exponent }) =>
      `${negative ? '-' : ''}${whole}${fraction === undefined ? '' : `.${fraction}`}${exponent === undefined ? '' : `e${exponent}`}`,
  );

describe('the exact value of a JSON number literal', () => {
  it.each([
    ['5', 5],
    ['5.0', 5],
    ['5e3', 5000],
    ['2.5E+1', 25],
    ['100e-2', 1],
    ['-0', 0],
    ['0.000e99', 0],
    ['9007199254740991', 9007199254740991],
  ])('reads %s as the integer %d', (text, value) => {
    expect(integerOfDecimal(text)).toBe(value);
  });

  it.each([
    ['a fraction', '1.5'],
    ['a fraction a double would round away', '4.99999999999999999999'],
    ['an integer past 2^53', '9007199254740993'],
    ['a huge exponent', '1e400'],
    ['a tiny exponent', '1e-400'],
    ['a fraction written with an exponent', '15e-1'],
    ['text that is not a number', '0x10'],
    ['a leading zero', '007'],
  ])('refuses %s', (_, text) => {
    expect(integerOfDecimal(text)).toBeUndefined();
  });

  it('agrees with exact BigInt arithmetic on any decimal literal', () => {
    fc.assert(
      fc.property(literal, (text) => {
        expect(integerOfDecimal(text)).toBe(referenceOf(text));
      }),
      { numRuns: 5_000 },
    );
  });
});
