// What a one-line text a person reads (a reason, a name, a key's name) may not hold, by Unicode category:
// - Cc, the control characters (C0, DEL and C1): NUL, a line break or an escape sequence breaks the logs,
//   terminals and files the text is written to.
// - Zl and Zp, U+2028 and U+2029: a line or paragraph break to JavaScript, JSON viewers and editors, so a
//   reason holding one fakes a second line in a history.
// - Cf, the format characters: the bidirectional controls (U+202A-U+202E, U+2066-U+2069, U+200E,
//   U+200F, U+061C) reorder what follows them on screen, so a name holding U+202E reads backwards; the
//   invisible ones (U+200B, U+2060, U+FEFF, U+00AD, the deprecated U+206A-U+206F, the interlinear
//   annotations U+FFF9-U+FFFB, the tag characters U+E0000-U+E007F) make two texts that look the same
//   differ, or hide words in one. ZWNJ and ZWJ (U+200C, U+200D) stay allowed: Persian, Indic scripts
//   and emoji sequences need them. Variation selectors are Mn, not Cf, so they pass too.
const CONTROL = /(?![\u200c\u200d])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/**
 * A text without the characters {@link holdsControlCharacter} refuses, as a JSON Schema `pattern` for
 * the OpenAPI document, which must say the same as the code (a test compares the two on every code
 * point). Written out by code point (Unicode 15.1) in ECMA-262 without flags, as JSON Schema tools read
 * a pattern: a character outside the Basic Multilingual Plane is its UTF-16 surrogate pair.
 */
export const PLAIN_TEXT_PATTERN =
  '^(?!.*(?:\\ud804[\\udcbd\\udccd]|\\ud80d[\\udc30-\\udc3f]|\\ud82f[\\udca0-\\udca3]|\\ud834[\\udd73-\\udd7a]|' +
  '\\udb40[\\udc01\\udc20-\\udc7f]))' +
  '[^\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890\\u0891\\u08e2\\u180e' +
  '\\u200b\\u200e\\u200f\\u2028-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb]*$';

/**
 * Whether `text` holds a character no one-line text may hold: a control character (Cc), a line or
 * paragraph separator (Zl, Zp), or a format character (Cf) other than ZWNJ and ZWJ.
 */
export const holdsControlCharacter = (text: string): boolean => CONTROL.test(text);
