import { DEFAULT_JSON_LIMITS, type JsonLimits } from './json-limits.js';
import { EMPTY, JsonMachine } from './json-machine.js';

export { DEFAULT_JSON_LIMITS, JsonInputError, type JsonLimits, type JsonProblem } from './json-limits.js';

/*
 * A lossless JSON parser for every adapter that reads JSON: the HTTP body and the CLI's import files.
 * It works on bytes, iteratively (an explicit stack, so no nesting overflows the call stack), with
 * bounds on depth and on every token, and it can read a top-level array as a stream of elements, chunk
 * by chunk, holding no more than one element and one chunk at a time. What it builds is what
 * lossless-json's parse builds: plain objects and arrays, strings, booleans, null, and every number as
 * a LosslessNumber holding its literal text, so an id past 2^53 or a quantity of 4.99999999999999999999
 * reaches the schemas exact. Text is decoded as UTF-8 strictly: a byte that begins no valid sequence is
 * refused with its offset, where a lenient decoder would store U+FFFD silently.
 */

/** The machine of every whole text read with the default limits (see `parseJson`). */
const WHOLE_TEXT = new JsonMachine(false, DEFAULT_JSON_LIMITS);

/**
 * Parses one whole JSON text (a string is read as its UTF-8 bytes). Throws a JsonInputError for a text
 * that is not JSON, not UTF-8, or beyond `limits`.
 */
export function parseJson(text: string | Uint8Array, limits: JsonLimits = DEFAULT_JSON_LIMITS): unknown {
  // The default limits' machine is kept and made ready again for each text (a request's body, read
  // whole): a read runs to its end without calling out, so no other parse can start inside it.
  const machine = limits === DEFAULT_JSON_LIMITS ? WHOLE_TEXT : new JsonMachine(false, limits);
  try {
    machine.read(typeof text === 'string' ? Buffer.from(text, 'utf8') : text, true);
    return machine.result;
  } finally {
    machine.reset();
  }
}

/**
 * Reads a JSON text holding an array, chunk by chunk, handing out its elements as they complete.
 * Throws a JsonInputError as `parseJson` does, and one of problem `not_array` when the text is JSON but
 * not an array.
 */
export class JsonArrayReader {
  private readonly machine: JsonMachine;

  constructor(limits: JsonLimits = DEFAULT_JSON_LIMITS) {
    this.machine = new JsonMachine(true, limits);
  }

  /** The elements that the bytes of `chunk` complete; `chunk` may be reused once this returns. */
  push(chunk: Uint8Array): unknown[] {
    return this.machine.read(chunk, false);
  }

  /** Ends the text: throws unless it was complete; answers the elements still pending. */
  end(): unknown[] {
    return this.machine.read(EMPTY, true);
  }
}
