// RFC 8259 number grammar, split into sign, integer digits, fraction digits and exponent.
const DECIMAL = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

// More significant digits than this cannot be a safe integer, so they are refused before any arithmetic.
const MAX_SAFE_DIGITS = 16;

/**
 * The one integer rule of the service, for every count it reads: a JSON body's quantity, a file's
 * quantity, a command-line option, a configuration variable. The text is a decimal in JSON's number
 * grammar, judged on its exact value: `5`, `5.0`, `5e3` and `-0` are integers; `4.99999999999999999999`
 * is a fraction and `1e400` too large, where JSON.parse or Number() would round both into plausible
 * values. Answers the value when it is a safe integer, else `undefined`. Works on the digits, never on a
 * double. (Ids are not counts: they have one canonical spelling, see `parsePetId`.)
 */
export function integerOfDecimal(literal: string): number | undefined {
  const parts = DECIMAL.exec(literal);
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

/** `integerOfDecimal` within `min..max`, or `undefined`. */
export function integerInRange(literal: string, min: number, max: number): number | undefined {
  const value = integerOfDecimal(literal);
  return value !== undefined && value >= min && value <= max ? value : undefined;
}
