/** The lowercase hexadecimal digits of each byte value, made once. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** `bytes` in lowercase hexadecimal, two digits a byte (what Node's `toString('hex')` gives). */
export function hexOf(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += HEX[byte];
  return hex;
}
