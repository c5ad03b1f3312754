import fc from 'fast-check';
import { LosslessNumber, parse } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_JSON_LIMITS,
  JsonArrayReader,
  JsonInputError,
  type JsonProblem,
  parseJson,
} from '../../src/adapters/shared/json-reader.js';

/** Streams `bytes` through a JsonArrayReader in chunks of the given sizes (cycled), collecting the elements. */
function streamed(bytes: Uint8Array, sizes: readonly number[] = [bytes.length || 1]): unknown[] {
  const reader = new JsonArrayReader();
  const elements: unknown[] = [];
  let at = 0;
  for (let k = 0; at < bytes.length; k += 1) {
    const size = sizes[k % sizes.length] as number;
    // A reused buffer, as the CLI reads into one: the reader must copy what it keeps.
    const chunk = Buffer.from(bytes.subarray(at, at + size));
    elements.push(...reader.push(chunk));
    chunk.fill(0x20);
    at += size;
  }
  elements.push(...reader.end());
  return elements;
}

function refusal(run: () => unknown): JsonInputError {
  try {
    run();
  } catch (error) {
    if (error instanceof JsonInputError) return error;
    throw error;
  }
  throw new Error('the text was accepted');
}

const expectRefused = (run: () => unknown, problem: JsonProblem, offset: number, reason: RegExp): void => {
  const error = refusal(run);
  expect(error.problem).toBe(problem);
  expect(error.offset).toBe(offset);
  expect(error.reason).toMatch(reason);
};

const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');

describe('parseJson builds what lossless-json builds', () => {
  it('agrees on any JSON text without duplicate keys', () => {
    fc.assert(
      fc.property(fc.json({ noUnicodeString: false }), (text) => {
        expect(parseJson(text)).toEqual(parse(text));
      }),
      { numRuns: 2_000 },
    );
  });

  it('reads each text afresh, whatever the text before it left unfinished or refused', () => {
    // The default limits' machine is kept from one text to the next: a cut text (often refused, mid-way
    // through an object, an array or a string) must leave nothing of itself for the whole one after it.
    fc.assert(
      fc.property(fc.json(), fc.nat(), (text, cut) => {
        try {
          parseJson(text.slice(0, cut % (text.length + 1)));
        } catch (error) {
          if (!(error instanceof JsonInputError)) throw error;
        }
        expect(parseJson(text)).toEqual(parse(text));
      }),
      { numRuns: 1_000 },
    );
  });

  it('keeps every number as its literal text, however many digits', () => {
    expect(parseJson('{"id": 9223372036854775807, "q": 4.99999999999999999999, "e": -1.5E+300}')).toEqual({
      id: new LosslessNumber('9223372036854775807'),
      q: new LosslessNumber('4.99999999999999999999'),
      e: new LosslessNumber('-1.5E+300'),
    });
  });

  it('decodes escapes, surrogate pairs and UTF-8, and skips a byte-order mark', () => {
    expect(parseJson('\uFEFF["a\\"b\\\\\\/\\b\\f\\n\\r\\t", "\\u00e9\\uD83D\\uDE00", "é😀"]')).toEqual([
      'a"b\\/\b\f\n\r\t',
      'é😀',
      'é😀',
    ]);
  });

  it('keeps a "__proto__" key as data', () => {
    const value = parseJson('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('parseJson refuses what is not JSON, naming the byte', () => {
  it.each([
    ['a duplicate key', '{"quantity":1,"quantity":1}', 14, /^Duplicate key "quantity"$/],
    ['a truncated text', '{"quantity":', 12, /^Unexpected end of input$/],
    ['a truncated string', '["abc', 5, /^Unexpected end of input$/],
    ['a truncated literal', '[tru', 4, /^Unexpected end of input$/],
    ['single quotes', "{'quantity':1}", 1, /^Expected a key in double quotes/],
    ['a trailing comma', '[1,]', 3, /^Unexpected "\]"/],
    ['content after the value', '{} {}', 3, /after the end/],
    ['a bad number', '[01]', 1, /^Invalid number 01$/],
    ['a control character in a string', '["a\nb"]', 3, /control character byte 0x0A/],
    ['a bad escape', '["\\x"]', 2, /^Invalid escape \\x$/],
    ['a short \\u escape', '["\\u12"]', 2, /4 hex digits/],
    ['an empty text', '', 0, /^Unexpected end of input$/],
  ])('%s', (_case, text, offset, reason) => {
    expectRefused(() => parseJson(text), 'syntax', offset, reason);
  });

  it('refuses 5,000 opening brackets with a limit, not a stack overflow', () => {
    const error = refusal(() => parseJson('['.repeat(5_000)));
    expect(error.problem).toBe('limit');
    expect(error.offset).toBe(DEFAULT_JSON_LIMITS.maxDepth);
    expect(error.reason).toBe(`Nested deeper than ${DEFAULT_JSON_LIMITS.maxDepth} levels`);
  });

  it('takes nesting up to the limit', () => {
    const depth = DEFAULT_JSON_LIMITS.maxDepth;
    expect(parseJson(`${'['.repeat(depth)}${']'.repeat(depth)}`)).toBeInstanceOf(Array);
  });

  it('names the path of the value at fault', () => {
    expect(refusal(() => parseJson('{"pets": [{"name": "a"}, {"name": tru}]}')).path).toBe('.pets[1].name');
  });
});

describe('strict UTF-8', () => {
  it.each([
    ['Latin-1 é', [0x5b, 0x22, 0x63, 0x61, 0x66, 0xe9, 0x22, 0x5d], 5],
    ['an overlong slash', [0x5b, 0x22, 0xc0, 0xaf, 0x22, 0x5d], 2],
    ['an encoded surrogate', [0x5b, 0x22, 0x61, 0xed, 0xa0, 0x80, 0x22, 0x5d], 3],
    ['a sequence cut by the quote', [0x5b, 0x22, 0xe2, 0x82, 0x22, 0x5d], 2],
    ['a code point past U+10FFFF', [0x5b, 0x22, 0xf4, 0x90, 0x80, 0x80, 0x22, 0x5d], 2],
    ['an invalid byte beside an escape', [0x5b, 0x22, 0x5c, 0x6e, 0xff, 0x22, 0x5d], 4],
  ])('refuses %s with the offset of its first bad byte', (_case, raw, offset) => {
    expectRefused(
      () => parseJson(Uint8Array.from(raw)),
      'encoding',
      offset,
      /^Byte 0x[0-9A-F]{2} begins no valid UTF-8 sequence$/,
    );
  });

  it('finds the bad byte of a stream, whatever the chunking', () => {
    const prefix = bytes(`[${'"ok",'.repeat(10_000)}"caf`);
    const text = Buffer.concat([prefix, Uint8Array.from([0xe9, 0x22, 0x5d])]);
    for (const size of [1, 7, 4096]) {
      expectRefused(() => streamed(text, [size]), 'encoding', prefix.length, /Byte 0xE9/);
    }
  });

  it('refuses an escaped lone surrogate, and UTF-16 text', () => {
    expectRefused(() => parseJson('["\\uD800"]'), 'encoding', 1, /lone surrogate/);
    expectRefused(() => parseJson(Uint8Array.from([0xff, 0xfe, 0x5b, 0x00])), 'encoding', 0, /UTF-16/);
  });
});

describe('JsonArrayReader streams the elements of an array', () => {
  const arrays = fc.array(fc.jsonValue(), { maxLength: 30 });
  const chunkSizes = fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 8 });

  it('hands out the elements lossless-json would parse, whatever the chunk boundaries', () => {
    fc.assert(
      fc.property(arrays, chunkSizes, (array, sizes) => {
        const text = JSON.stringify(array, null, (sizes[0] as number) % 3);
        expect(streamed(bytes(text), sizes)).toEqual(parse(text));
      }),
      { numRuns: 1_000 },
    );
  });

  it('hands each element out as soon as its last byte arrives', () => {
    const reader = new JsonArrayReader();
    expect(reader.push(bytes('[{"id": 1}, {"id"'))).toEqual([{ id: new LosslessNumber('1') }]);
    expect(reader.push(bytes(': 2}, 3'))).toEqual([{ id: new LosslessNumber('2') }]);
    expect(reader.push(bytes('4]  '))).toEqual([new LosslessNumber('34')]);
    expect(reader.end()).toEqual([]);
  });

  it('refuses a text that is JSON but not an array, and one that is not JSON', () => {
    expectRefused(() => streamed(bytes('{"id": 1}')), 'not_array', 0, /not an array/);
    expectRefused(() => streamed(bytes('"orders"')), 'not_array', 0, /not an array/);
    expectRefused(() => streamed(bytes('not json')), 'syntax', 0, /Unexpected "n"/);
    expectRefused(() => streamed(bytes('[1, 2')), 'syntax', 5, /end of input/);
  });

  it('refuses a runaway string after reading little more than the limit of it', () => {
    const reader = new JsonArrayReader();
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    reader.push(bytes('[{"name": "'));
    let fed = 0;
    const error = refusal(() => {
      // 300 MB, were it all read.
      for (; fed < 300 * 1024 * 1024; fed += chunk.length) reader.push(chunk);
    });
    expect(error).toMatchObject({ problem: 'limit', offset: 10, path: '[0].name' });
    expect(error.reason).toBe(`A string longer than ${DEFAULT_JSON_LIMITS.maxStringBytes} bytes`);
    expect(fed).toBeLessThanOrEqual(2 * DEFAULT_JSON_LIMITS.maxStringBytes);
  });

  it('refuses an element larger than the limit, and a runaway number', () => {
    const limits = { ...DEFAULT_JSON_LIMITS, maxElementBytes: 100 };
    const reader = new JsonArrayReader(limits);
    expect(reader.push(bytes(`[["${'a'.repeat(90)}"], [`))).toHaveLength(1);
    const error = refusal(() => reader.push(bytes(`"${'b'.repeat(95)}", "c"]]`)));
    // Element [1] starts at byte 97; its closing bracket, at 200, takes it past 100 bytes.
    expect(error).toMatchObject({ problem: 'limit', offset: 200, path: '[1]' });
    expectRefused(() => streamed(bytes(`[${'1'.repeat(2_000)}]`)), 'limit', 1, /number longer than 1024/);
  });
});
