/**
 * The index of the first byte in `bytes[from..to)` that begins no valid UTF-8 sequence (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF, no sequence cut short by `to`), or -1 when
 * there is none. The decoder only says that a text is invalid; this says where, for the message.
 */
export function firstInvalidUtf8(bytes: Uint8Array, from: number, to: number): number {
  let i = from;
  while (i < to) {
    const lead = bytes[i] as number;
    if (lead < 0x80) {
      i += 1;
      continue;
    }
    const length =
      lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
    if (length === 0 || i + length > to) return i;
    // The second byte's range is narrower after some leads: that is what rules out overlong forms,
    // surrogates and code points past U+10FFFF.
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    const second = bytes[i + 1] as number;
    if (second < low || second > high) return i;
    for (let k = 2; k < length; k += 1) {
      const next = bytes[i + k] as number;
      if (next < 0x80 || next > 0xbf) return i;
    }
    i += length;
  }
  return -1;
}
