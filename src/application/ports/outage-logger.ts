/**
 * The little of a logger that an adapter needs to report an outage of what it depends on (a lost
 * connection, a fallback in use) and its end; a pino logger fits it.
 */
export interface OutageLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}
