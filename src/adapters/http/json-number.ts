// RFC 8259 number grammar, split into sign, integer digits, fraction digits and exponent.
const JSON_NUMBER = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

// More significant digits than this cannot be a safe integer, so they are refused before any arithmetic.
const MAX_SAFE_DIGITS = 16;

/**
 * The exact value of a JSON number literal when it is a safe integer (`5`, `5.0`, `5e3`, `-0`), or
 * `undefined` when it has a fraction or lies beyond 2^53. Works on the digits, never on a double, so
 * that `4.99999999999999999999` is a fraction and `1e400` is too large, where JSON.parse would round
 * both into plausible values.
 */
export function safeIntegerOfJsonNumber(literal: string): number | undefined {
  const parts = JSON_NUMBER.exec(literal);
  if (parts === null) return undefined;
  const [, sign, whole = '', fraction = '', exponentText = '0'] = parts;
  let digits = (whole + fraction).replace(/^0+/, '');
  if (digits === '') return 0;
  // The value is digits × 10^scale.
  const scale = Number(exponentText) - fraction.length;
  if (scale < 0) {
    const dropped = digits.slice(scale);
    if (-scale > digits.length || /[1-9]/.test(dropped)) return undefined;
    digits = digits.slice(0, scale);
  } else {
    if (digits.length + scale > MAX_SAFE_DIGITS) return undefined;
    digits += '0'.repeat(scale);
  }
  if (digits.length > MAX_SAFE_DIGITS) return undefined;
  const value = Number(digits);
  if (!Number.isSafeInteger(value)) return undefined;
  return sign === '-' ? -value : value;
}
