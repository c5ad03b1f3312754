import { randomUUID } from 'node:crypto';

// A client's id is echoed only when it is short and plain: it goes into a header and every log line,
// so nothing that could split a header, forge a log field or bloat either is taken over.
const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * What an API key looks like, with or without its `psk_` prefix: 40 or more letters and digits in a
 * row. A client that pastes its key into the wrong header must not have it echoed and logged.
 */
const KEY_LIKE = /psk_|[A-Za-z0-9]{40}/i;

/** The id of a request: the client's X-Request-Id when it is sane and holds nothing like a key, otherwise a new UUID. */
export const requestIdOf = (sent: string | string[] | undefined): string =>
  typeof sent === 'string' && SANE_REQUEST_ID.test(sent) && !KEY_LIKE.test(sent) ? sent : randomUUID();
