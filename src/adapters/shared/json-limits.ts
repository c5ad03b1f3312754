/** How much one JSON text may hold; every bound keeps the memory a hostile text can claim small. */
export interface JsonLimits {
  /** Containers nested deeper than this are refused. */
  readonly maxDepth: number;
  /** Bytes of one string between its quotes, escapes included. */
  readonly maxStringBytes: number;
  /** Characters of one number literal. */
  readonly maxNumberLength: number;
  /** Bytes of one element of a streamed array, or of the whole value when the text is not an array. */
  readonly maxElementBytes: number;
}

/**
 * Far above anything the service reads (its deepest record nests 4 levels, its longest field is a
 * 2,048-character URL), far below what would strain memory.
 */
export const DEFAULT_JSON_LIMITS: JsonLimits = {
  maxDepth: 64,
  maxStringBytes: 64 * 1024,
  maxNumberLength: 1_024,
  maxElementBytes: 4 * 1024 * 1024,
};

/** What kind of problem a JSON text has: `not_array` when a stream was asked for and the value is not one. */
export type JsonProblem = 'syntax' | 'encoding' | 'limit' | 'not_array';

/** A text the reader refuses, with the byte offset where the problem lies and the path to the value. */
export class JsonInputError extends Error {
  override readonly name = 'JsonInputError';

  constructor(
    readonly problem: JsonProblem,
    readonly reason: string,
    /** Offset in bytes from the start of the text. */
    readonly offset: number,
    /** Where in the value, such as `[3].tags[0].name` (cut short past 120 characters); empty at the top. */
    readonly path: string,
  ) {
    super(`${reason} at byte ${offset}${path === '' ? '' : ` (${path})`}`);
  }
}
