/**
 * The URL without its password, for messages and logs. A file of its own, importing nothing, so that the
 * service's start line can name the database without loading pg.
 */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'the configured database';
  }
}
