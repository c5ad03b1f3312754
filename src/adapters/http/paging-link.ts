import type { HttpContext } from './http-context.js';

/**
 * Sets `Link: <path?query>; rel="next"` (RFC 8288): where the page after this one is read. The target
 * is path-absolute, resolved against the request's own origin, and its query is the paging parameters
 * alone, in the order given; their values are digits and need no escaping.
 */
export function setNextLink(
  ctx: HttpContext,
  path: string,
  query: Readonly<Record<string, string | number | bigint>>,
): void {
  const search = Object.entries(query)
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  ctx.res.setHeader('Link', `<${path}?${search}>; rel="next"`);
}
