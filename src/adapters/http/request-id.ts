import { randomFillSync } from 'node:crypto';

// A client's id is echoed only when it is short and plain: it goes into a header and every log line,
// so nothing that could split a header, forge a log field or bloat either is taken over.
const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * What an API key looks like, with or without its `psk_` prefix: 40 or more letters and digits in a
 * row. A client that pastes its key into the wrong header must not have it echoed and logged.
 */
const KEY_LIKE = /psk_|[A-Za-z0-9]{40}/i;

/** UUIDs drawn a fill of the CSPRNG at a time, as node's randomUUID keeps its entropy cache. */
const UUIDS_A_FILL = 128;
const entropy = Buffer.alloc(16 * UUIDS_A_FILL);
let nextUuid = UUIDS_A_FILL;
/** The text of the UUID being written, as ASCII bytes: one string is made of it, no part strings. */
const uuidText = Buffer.alloc(36);
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/**
 * A random (version 4) UUID in its lower-case 8-4-4-4-12 form, as crypto.randomUUID() writes it, from
 * the same CSPRNG: randomUUID builds its text of 20 strings a call (about 0.6 KB of every request
 * without an id of its own), this one string.
 */
export function newRequestUuid(): string {
  if (nextUuid === UUIDS_A_FILL) {
    randomFillSync(entropy);
    nextUuid = 0;
  }
  const offset = nextUuid * 16;
  nextUuid += 1;
  let at = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) uuidText[at++] = 0x2d;
    let byte = entropy[offset + i] as number;
    // RFC 9562: the version (4) in the high nibble of byte 6, the variant (10) in the top bits of byte 8.
    if (i === 6) byte = (byte & 0x0f) | 0x40;
    else if (i === 8) byte = (byte & 0x3f) | 0x80;
    uuidText[at++] = HEX_DIGITS[byte >> 4] as number;
    uuidText[at++] = HEX_DIGITS[byte & 0x0f] as number;
  }
  return uuidText.toString('latin1', 0, 36);
}

/** The id of a request: the client's X-Request-Id when it is sane and holds nothing like a key, otherwise a new UUID. */
export const requestIdOf = (sent: string | string[] | undefined): string =>
  typeof sent === 'string' && SANE_REQUEST_ID.test(sent) && !KEY_LIKE.test(sent) ? sent : newRequestUuid();
