import { firstInvalidUtf8 } from './utf8.js';

/** Flags of a scanned string: which decoding it needs. */
export const ESCAPED = 1;
export const NON_ASCII = 2;

const BACKSLASH = 0x5c;
const ESCAPES: Readonly<Record<number, string>> = {
  34: '"',
  92: '\\',
  47: '/',
  98: '\b',
  102: '\f',
  110: '\n',
  114: '\r',
  116: '\t',
};
const HEX4 = /^[0-9a-fA-F]{4}$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `"x"` for a printable ASCII byte, `byte 0xE9` for any other: how messages name a byte. */
export const byteName = (c: number): string =>
  c >= 0x21 && c <= 0x7e ? `"${String.fromCharCode(c)}"` : `byte 0x${c.toString(16).toUpperCase().padStart(2, '0')}`;

/** How a decoder reports a problem at byte `at` of the buffer it was given. */
export type Refuse = (problem: 'syntax' | 'encoding', reason: string, at: number) => Error;

function strictUtf8(b: Buffer, from: number, to: number, refuse: Refuse): string {
  try {
    return utf8.decode(b.subarray(from, to));
  } catch {
    const at = firstInvalidUtf8(b, from, to);
    const name = byteName(b[at] as number);
    throw refuse('encoding', `${name[0]?.toUpperCase()}${name.slice(1)} begins no valid UTF-8 sequence`, at);
  }
}

/**
 * The text of the JSON string whose quotes are at `start` and `end` in `b`, scanned with `flags`: plain
 * ASCII is copied as is, the rest decoded as strict UTF-8, escapes resolved. Escapes that spell a lone
 * surrogate are refused, since no UTF-8 text can hold one.
 */
export function decodeJsonString(b: Buffer, start: number, end: number, flags: number, refuse: Refuse): string {
  if (flags === 0) return b.toString('latin1', start + 1, end);
  if ((flags & ESCAPED) === 0) return strictUtf8(b, start + 1, end, refuse);
  let text = '';
  let from = start + 1;
  let i = from;
  while (i < end) {
    if (b[i] !== BACKSLASH) {
      i += 1;
      continue;
    }
    text += strictUtf8(b, from, i, refuse);
    const code = b[i + 1] as number;
    if (code === 0x75) {
      const hex = b.toString('latin1', i + 2, Math.min(i + 6, end));
      if (!HEX4.test(hex)) throw refuse('syntax', 'Invalid \\u escape: it takes 4 hex digits', i);
      text += String.fromCharCode(Number.parseInt(hex, 16));
      i += 6;
    } else {
      const escaped = ESCAPES[code];
      if (escaped === undefined) throw refuse('syntax', `Invalid escape \\${String.fromCharCode(code)}`, i);
      text += escaped;
      i += 2;
    }
    from = i;
  }
  text += strictUtf8(b, from, end, refuse);
  if (LONE_SURROGATE.test(text)) throw refuse('encoding', 'A \\u escape spells a lone surrogate', start);
  return text;
}
