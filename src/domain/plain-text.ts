// Control characters (Unicode's Cc: C0, DEL and C1): a text holding NUL, a line break or an escape
// sequence breaks the logs, terminals and files it is written to, and none belongs in a one-line text.
// The bidirectional controls (the embeddings and overrides U+202A-U+202E, the isolates U+2066-U+2069,
// the marks U+200E, U+200F and U+061C) reorder what follows them on screen: a reason or a name holding
// U+202E shows its text backwards, so a log line or a page says something other than what was stored.
const CONTROL = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/**
 * The characters {@link holdsControlCharacter} refuses, as a JSON Schema `pattern` class body (for the
 * OpenAPI document, which must say the same as the code).
 */
export const CONTROL_CHARACTER_CLASS =
  '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';

/** Whether `text` holds a control character (C0, DEL or C1) or a bidirectional control. */
export const holdsControlCharacter = (text: string): boolean => CONTROL.test(text);
