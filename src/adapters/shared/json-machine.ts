import { LosslessNumber } from 'lossless-json';
import { JsonInputError, type JsonLimits, type JsonProblem } from './json-limits.js';
import { byteName, decodeJsonString, ESCAPED, NON_ASCII } from './json-strings.js';

/*
 * The state machine behind json-reader.ts: a pushdown automaton over bytes, whose stack is an array,
 * so that no nesting can overflow the call stack. It keeps the bytes of an unfinished token between
 * chunks, and nothing else of them.
 */

// What the reader expects next.
const VALUE = 0;
const VALUE_OR_CLOSE = 1;
const KEY_OR_CLOSE = 2;
const KEY = 3;
const COLON = 4;
const COMMA_OR_CLOSE = 5;
const END = 6;

// Kinds of container on the stack; STREAM is the top-level array whose elements are handed out.
const ARRAY = 0;
const OBJECT = 1;
const STREAM = 2;

interface Frame {
  readonly kind: number;
  readonly array: unknown[];
  readonly object: Record<string, unknown>;
  /** The key whose value is being read (objects). */
  key: string | undefined;
  /** Elements handed out so far (STREAM). */
  count: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
export const EMPTY = Buffer.alloc(0);
const LITERALS: ReadonlyMap<number, readonly [Buffer, unknown]> = new Map([
  [0x74, [Buffer.from('true'), true]],
  [0x66, [Buffer.from('false'), false]],
  [0x6e, [Buffer.from('null'), null]],
]);

/** The unused container of a frame (an object's array, an array's object): shared, never written. */
const NO_ARRAY: unknown[] = Object.freeze([]) as unknown as unknown[];
const NO_OBJECT: Record<string, unknown> = Object.freeze({});
/** What a whole text's read answers: it hands out no elements (only a streamed array does). */
const NO_ELEMENTS: unknown[] = Object.freeze([]) as unknown as unknown[];

const isNumberByte = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;

/** Text of the input quoted in a message, cut short: a message must stay a line, whatever the input. */
const MESSAGE_TEXT_MAX = 120;
const clip = (text: string): string =>
  text.length > MESSAGE_TEXT_MAX ? `${text.slice(0, MESSAGE_TEXT_MAX - 1)}…` : text;

const keyPath = (key: string): string => (/^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`);

const asBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** The parser's state between chunks. */
export class JsonMachine {
  private rest: Buffer | undefined;
  /** Offset of the first byte of the buffer being read. */
  private base = 0;
  private started = false;
  private state = VALUE;
  private readonly stack: Frame[] = [];
  private elementStart = 0;
  private flags = 0;
  private out: unknown[] = NO_ELEMENTS;
  result: unknown;
  /** What a string's decoder throws with, made once rather than a closure a string. */
  private readonly fail = (problem: JsonProblem, reason: string, at: number): JsonInputError =>
    this.error(problem, reason, at);

  constructor(
    private readonly streaming: boolean,
    private readonly limits: JsonLimits,
  ) {}

  /**
   * Ready for a new text, as a new machine would be, its stack's room kept: a whole text read again and
   * again (each request's body) allocates no machine and no stack of its own. The previous text's
   * values are let go.
   */
  reset(): void {
    this.rest = undefined;
    this.base = 0;
    this.started = false;
    this.state = VALUE;
    // Only after a text that stopped part-way: a length set on the emptied stack gives up its room
    // (152 bytes a body more, measured), where a whole text's last close has emptied it already.
    if (this.stack.length > 0) this.stack.length = 0;
    this.elementStart = 0;
    this.flags = 0;
    this.out = NO_ELEMENTS;
    this.result = undefined;
  }

  /** Reads the next bytes; answers the elements of a streamed array that they complete. */
  read(chunk: Uint8Array, final: boolean): unknown[] {
    const b = this.rest === undefined ? asBuffer(chunk) : Buffer.concat([this.rest, chunk]);
    this.rest = undefined;
    // Only a streamed array's elements are handed out: a whole text's read answers the shared empty list.
    const out: unknown[] = this.streaming ? [] : NO_ELEMENTS;
    this.out = out;
    let i = 0;
    if (!this.started) {
      if (b.length < 3 && !final) return this.carry(b, 0, out, final);
      this.started = true;
      i = this.skipByteOrderMark(b);
    }
    const n = b.length;
    while (i < n) {
      const c = b[i] as number;
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        i += 1;
        continue;
      }
      const state = this.state;
      if (state === VALUE || state === VALUE_OR_CLOSE) {
        if (c === 0x5d && state === VALUE_OR_CLOSE) {
          this.close(i);
          i += 1;
          continue;
        }
        const next = this.value(b, i, final);
        if (next < 0) return this.carry(b, i, out, final);
        i = next;
      } else if (state === KEY || state === KEY_OR_CLOSE) {
        if (c === 0x7d && state === KEY_OR_CLOSE) {
          this.close(i);
          i += 1;
          continue;
        }
        if (c !== QUOTE) throw this.error('syntax', `Expected a key in double quotes, found ${byteName(c)}`, i);
        const end = this.scanString(b, i);
        if (end < 0) return this.carry(b, i, out, final);
        const frame = this.stack[this.stack.length - 1] as Frame;
        const key = this.decode(b, i, end);
        if (Object.hasOwn(frame.object, key))
          throw this.error('syntax', `Duplicate key ${clip(JSON.stringify(key))}`, i);
        frame.key = key;
        this.state = COLON;
        i = end + 1;
      } else if (state === COLON) {
        if (c !== 0x3a) throw this.error('syntax', `Expected ":" after a key, found ${byteName(c)}`, i);
        this.state = VALUE;
        i += 1;
      } else if (state === COMMA_OR_CLOSE) {
        const frame = this.stack[this.stack.length - 1] as Frame;
        const close = frame.kind === OBJECT ? 0x7d : 0x5d;
        if (c === 0x2c) {
          this.state = frame.kind === OBJECT ? KEY : VALUE;
        } else if (c === close) {
          this.close(i);
        } else {
          const wanted = frame.kind === OBJECT ? '"," or "}"' : '"," or "]"';
          throw this.error('syntax', `Expected ${wanted}, found ${byteName(c)}`, i);
        }
        i += 1;
      } else {
        throw this.error('syntax', `Unexpected ${byteName(c)} after the end of the JSON value`, i);
      }
    }
    this.base += n;
    if (final && this.state !== END) throw this.error('syntax', 'Unexpected end of input', 0);
    return out;
  }

  /** Keeps the bytes of an unfinished token for the next chunk (a copy: the caller may reuse its buffer). */
  private carry(b: Buffer, at: number, out: unknown[], final: boolean): unknown[] {
    if (final) throw this.error('syntax', 'Unexpected end of input', b.length);
    this.rest = Buffer.from(b.subarray(at));
    this.base += at;
    return out;
  }

  private skipByteOrderMark(b: Buffer): number {
    // A byte-order mark is not JSON, but editors write one.
    if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return 3;
    if ((b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff)) {
      throw this.error('encoding', 'The text is UTF-16, not UTF-8', 0);
    }
    return 0;
  }

  /** Reads the value starting at `i`; answers the index after it, or -1 when the chunk ends first. */
  private value(b: Buffer, i: number, final: boolean): number {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined || top.kind === STREAM) this.elementStart = this.base + i;
    else this.checkElementSize(i);
    const c = b[i] as number;
    if (c === QUOTE) {
      const end = this.scanString(b, i);
      if (end < 0) return -1;
      this.complete(this.decode(b, i, end));
      return end + 1;
    }
    if (c === 0x7b || c === 0x5b) {
      if (this.stack.length >= this.limits.maxDepth) {
        throw this.error('limit', `Nested deeper than ${this.limits.maxDepth} levels`, i);
      }
      const kind = c === 0x7b ? OBJECT : this.streaming && top === undefined ? STREAM : ARRAY;
      // Only the container of its kind is made: the other is a shared empty one, never written.
      this.stack.push({
        kind,
        array: kind === OBJECT ? NO_ARRAY : [],
        object: kind === OBJECT ? {} : NO_OBJECT,
        key: undefined,
        count: 0,
      });
      this.state = c === 0x7b ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
      return i + 1;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      const stop = Math.min(b.length, i + this.limits.maxNumberLength + 1);
      while (j < stop && isNumberByte(b[j] as number)) j += 1;
      if (j - i > this.limits.maxNumberLength) {
        throw this.error('limit', `A number longer than ${this.limits.maxNumberLength} characters`, i);
      }
      if (j === b.length && !final) return -1;
      const literal = b.toString('latin1', i, j);
      let number: LosslessNumber;
      try {
        number = new LosslessNumber(literal);
      } catch {
        throw this.error('syntax', `Invalid number ${clip(literal)}`, i);
      }
      this.complete(number);
      return j;
    }
    const literal = LITERALS.get(c);
    if (literal !== undefined) {
      const [bytes, value] = literal;
      const available = Math.min(bytes.length, b.length - i);
      if (b.compare(bytes, 0, available, i, i + available) === 0) {
        if (available < bytes.length) {
          if (!final) return -1;
          throw this.error('syntax', 'Unexpected end of input', b.length);
        } else {
          this.complete(value);
          return i + bytes.length;
        }
      }
    }
    throw this.error('syntax', `Unexpected ${byteName(c)}`, i);
  }

  private checkElementSize(i: number): void {
    const max = this.limits.maxElementBytes;
    if (this.base + i - this.elementStart > max) {
      throw this.error('limit', `A value larger than ${max} bytes`, i);
    }
  }

  /** Puts a finished value in its container, hands it out, or ends the text. */
  private complete(value: unknown): void {
    const frame = this.stack[this.stack.length - 1];
    if (frame === undefined) {
      this.state = END;
      if (this.streaming)
        throw new JsonInputError('not_array', 'The top-level value is not an array', this.elementStart, '');
      this.result = value;
      return;
    }
    if (frame.kind === STREAM) {
      this.out.push(value);
      frame.count += 1;
    } else if (frame.kind === ARRAY) {
      frame.array.push(value);
    } else {
      const key = frame.key as string;
      // A "__proto__" key is data, not the object's prototype.
      if (key === '__proto__') Object.defineProperty(frame.object, key, { value, enumerable: true, writable: true });
      else frame.object[key] = value;
      frame.key = undefined;
    }
    this.state = COMMA_OR_CLOSE;
  }

  private close(i: number): void {
    const frame = this.stack.pop() as Frame;
    if (frame.kind === STREAM) {
      this.state = END;
      return;
    }
    this.checkElementSize(i);
    this.complete(frame.kind === OBJECT ? frame.object : frame.array);
  }

  /** The index of the closing quote of the string opening at `start`, or -1 when the chunk ends first. */
  private scanString(b: Buffer, start: number): number {
    const max = this.limits.maxStringBytes;
    const n = b.length;
    const stop = Math.min(n, start + 2 + max);
    let flags = 0;
    let i = start + 1;
    while (i < stop) {
      const c = b[i] as number;
      if (c === QUOTE) {
        this.flags = flags;
        return i;
      }
      if (c === BACKSLASH) {
        flags |= ESCAPED;
        i += 2;
      } else {
        if (c < 0x20) throw this.error('syntax', `Unescaped control character ${byteName(c)} in a string`, i);
        if (c >= 0x80) flags |= NON_ASCII;
        i += 1;
      }
    }
    if (stop < n || n - start - 1 > max) throw this.error('limit', `A string longer than ${max} bytes`, start);
    return -1;
  }

  private decode(b: Buffer, start: number, end: number): string {
    return decodeJsonString(b, start, end, this.flags, this.fail);
  }

  private error(problem: JsonProblem, reason: string, i: number): JsonInputError {
    let path = '';
    for (const frame of this.stack) {
      if (frame.kind === OBJECT) path += frame.key === undefined ? '' : keyPath(frame.key);
      else path += `[${frame.kind === STREAM ? frame.count : frame.array.length}]`;
    }
    return new JsonInputError(problem, reason, this.base + i, clip(path));
  }
}
