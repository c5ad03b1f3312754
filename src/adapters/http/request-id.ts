import { randomUUID } from 'node:crypto';

// A client's id is echoed only when it is short and plain: it goes into a header and every log line,
// so nothing that could split a header, forge a log field or bloat either is taken over.
const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The id of a request: the client's X-Request-Id when it is sane, otherwise a new UUID. */
export const requestIdOf = (sent: string | string[] | undefined): string =>
  typeof sent === 'string' && SANE_REQUEST_ID.test(sent) ? sent : randomUUID();
