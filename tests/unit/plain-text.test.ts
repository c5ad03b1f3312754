import { describe, expect, it } from 'vitest';
import { holdsControlCharacter, PLAIN_TEXT_PATTERN } from '../../src/domain/plain-text.js';
import { isReason } from '../../src/domain/stock-change.js';

const hex = (codePoint: number): string => `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;

describe('a one-line text refuses the characters that break or hide its line', () => {
  it.each([
    ['the line separator', 0x2028],
    ['the paragraph separator', 0x2029],
    ['inhibit symmetric swapping', 0x206a],
    ['activate symmetric swapping', 0x206b],
    ['inhibit Arabic form shaping', 0x206c],
    ['activate Arabic form shaping', 0x206d],
    ['national digit shapes', 0x206e],
    ['nominal digit shapes', 0x206f],
    ['the interlinear annotation anchor', 0xfff9],
    ['the interlinear annotation separator', 0xfffa],
    ['the interlinear annotation terminator', 0xfffb],
    ['the zero width space', 0x200b],
    ['the word joiner', 0x2060],
    ['the byte order mark (zero width no-break space)', 0xfeff],
    ['the soft hyphen', 0x00ad],
    ['the language tag', 0xe0001],
    ['the tag space', 0xe0020],
    ['the tag latin small letter a', 0xe0061],
    ['the cancel tag', 0xe007f],
    ['the right-to-left override', 0x202e],
    ['a line feed', 0x0a],
    ['a C1 control', 0x85],
  ])('refuses %s', (_name, codePoint) => {
    const text = `stock ${String.fromCodePoint(codePoint)}count`;
    expect(holdsControlCharacter(text)).toBe(true);
    expect(isReason(text)).toBe(false);
  });

  it.each([
    ['a family emoji joined by ZWJ', '\u{1f468}\u200d\u{1f469}\u200d\u{1f467}'],
    ['a rainbow flag (variation selector 16 and ZWJ)', '\u{1f3f3}\ufe0f\u200d\u{1f308}'],
    ['a heart shown as text (variation selector 15)', '\u2764\ufe0e'],
    ['a CJK ideograph with an ideographic variation selector', '\u845b\u{e0100}'],
    ['a Persian word with ZWNJ', '\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645'],
    ['a Devanagari conjunct with ZWJ', '\u0915\u094d\u200d\u0937'],
    ['accented letters and a no-break space', 'Caf\u00e9\u00a0cr\u00e8me'],
  ])('accepts %s', (_name, text) => {
    expect(holdsControlCharacter(text)).toBe(false);
    expect(isReason(text)).toBe(true);
  });

  it("refuses exactly Unicode's Cc, Cf, Zl and Zp, but ZWNJ and ZWJ, as the pattern of the OpenAPI document does (read without flags, on UTF-16)", () => {
    const documented = new RegExp(PLAIN_TEXT_PATTERN);
    const categories = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]$/u;
    const differing: string[] = [];
    for (let codePoint = 0; codePoint <= 0x10ffff; codePoint += 1) {
      if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue;
      const character = String.fromCodePoint(codePoint);
      const expected = categories.test(character) && codePoint !== 0x200c && codePoint !== 0x200d;
      if (documented.test(`a${character}b`) === expected || holdsControlCharacter(character) !== expected) {
        differing.push(hex(codePoint));
      }
    }
    expect(differing).toEqual([]);
  });
});
