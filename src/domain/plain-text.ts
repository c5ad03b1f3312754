// Control characters (Unicode's Cc: C0, DEL and C1): a text holding NUL, a line break or an escape
// sequence breaks the logs, terminals and files it is written to, and none belongs in a one-line text.
const CONTROL = /\p{Cc}/u;

/** Whether `text` holds a control character (C0, DEL or C1). */
export const holdsControlCharacter = (text: string): boolean => CONTROL.test(text);
