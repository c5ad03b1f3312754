import { isLosslessNumber, parse, stringify } from 'lossless-json';
import { INT64_PROPERTIES } from './generated/int64-properties.js';

/**
 * Parses a JSON body without rounding: the int64 properties of the API (`id`, `petId`, ...) come out as
 * bigints, whatever their size, and every other number as a number. JSON.parse would round an id past
 * 2^53 before any code could see it.
 */
export function parseBody(text: string): unknown {
  return parse(text, (key, value) => {
    if (!isLosslessNumber(value)) return value;
    // valueOf() throws rather than round a number that does not fit in a double.
    return INT64_PROPERTIES.has(key) ? BigInt(value.toString()) : value.valueOf();
  });
}

/** Writes a JSON body; a bigint goes out as its exact digits. */
export function stringifyBody(value: unknown): string {
  const text = stringify(value);
  if (text === undefined) throw new TypeError('the request body cannot be written as JSON');
  return text;
}
