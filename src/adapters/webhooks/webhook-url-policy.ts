import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { WebhookUrlCheck } from '../../application/ports/webhook-delivery.js';

/** The longest URL an endpoint may have. */
export const WEBHOOK_URL_MAX = 2_048;

/**
 * The IPv4 address an IPv6 one carries and reaches, or undefined: IPv4-mapped (::ffff:0:0/96) and
 * IPv4-translated (::ffff:0:0:0/96) addresses, the deprecated IPv4-compatible ones (::/96, which
 * `[::127.0.0.1]` spells), NAT64's well-known prefix (64:ff9b::/96) and 6to4 (2002::/16, the IPv4 in
 * bits 16 to 48). Each is routed to that IPv4 address by the host's stack or a gateway, so it is
 * judged as that address. Teredo and local-use NAT64 (64:ff9b:1::/48) are refused whole: they reach
 * whatever their relay or network's translator reaches.
 */
function embeddedIpv4(address: ipaddr.IPv6): string | undefined {
  const words = address.parts;
  const word = (i: number): number => words[i] ?? 0;
  const dotted = (high: number, low: number): string => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const zeroTo = (n: number): boolean => words.slice(0, n).every((w) => w === 0);
  if (zeroTo(5) && (word(5) === 0xffff || word(5) === 0)) return dotted(word(6), word(7));
  if (zeroTo(4) && word(4) === 0xffff && word(5) === 0) return dotted(word(6), word(7));
  if (word(0) === 0x64 && word(1) === 0xff9b && words.slice(2, 6).every((w) => w === 0)) {
    return dotted(word(6), word(7));
  }
  return word(0) === 0x2002 ? dotted(word(1), word(2)) : undefined;
}

/** IANA's IPv6 address space registry: only 2000::/3 is allocated as global unicast. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Why an address may not receive webhooks, or undefined when it may. An address must be a public
 * unicast one: ipaddr.js classifies it by IANA's special-purpose address registries (loopback,
 * private, link-local and so the metadata services, carrier-grade NAT, documentation, benchmarking,
 * ORCHID, the deprecated site-local and 6to4 relay ranges, multicast, ...), and any range it names but
 * `unicast` is refused; an IPv6 one must also lie in 2000::/3, the only space IANA allocates for
 * global unicast. One that carries an IPv4 address is judged as that address.
 */
export function forbiddenAddress(address: string): string | undefined {
  if (isIP(address) === 0) return `${address} is not an IP address`;
  const parsed = ipaddr.parse(address);
  const refused = (range: string): string => `${address} is not a public address (IANA's ${range} range)`;
  if (parsed.kind() === 'ipv4') {
    const range = parsed.range();
    return range === 'unicast' ? undefined : refused(range);
  }
  const v6 = parsed as ipaddr.IPv6;
  const embedded = embeddedIpv4(v6);
  if (embedded !== undefined) {
    const problem = forbiddenAddress(embedded);
    return problem === undefined
      ? undefined
      : `${address} is not a public address (it reaches ${embedded}: ${problem})`;
  }
  const range = v6.range();
  if (range !== 'unicast') return refused(range);
  return v6.match(GLOBAL_UNICAST_V6) ? undefined : refused('unallocated');
}

/** Resolves a name to every address it has, as the connection would. */
export type Resolve = (host: string) => Promise<readonly string[]>;

export const resolveAll: Resolve = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** The URL's host without the brackets of an IPv6 literal. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * The rule for endpoint URLs: absolute, https, without credentials, at most WEBHOOK_URL_MAX characters,
 * and every address its host resolves to outside the forbidden ranges. `allowPrivate`
 * (PETSTORE_WEBHOOK_ALLOW_PRIVATE) lifts the last rule and lets http through, for tests and a local
 * receiver.
 */
export function webhookUrlCheck(allowPrivate: boolean, resolve: Resolve = resolveAll): WebhookUrlCheck {
  return async (text) => {
    if (text.length > WEBHOOK_URL_MAX) return `the URL is longer than ${WEBHOOK_URL_MAX} characters`;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return 'the URL is not an absolute URL';
    }
    if (url.username !== '' || url.password !== '') return 'the URL must not carry a user name or password';
    if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return 'the URL must be https';
    if (allowPrivate) return undefined;
    const host = hostOf(url);
    let addresses: readonly string[];
    try {
      addresses = isIP(host) === 0 ? await resolve(host) : [host];
    } catch {
      return `the host ${host} does not resolve`;
    }
    for (const address of addresses) {
      const problem = forbiddenAddress(address);
      if (problem !== undefined) {
        return `${host} resolves to ${problem}; set PETSTORE_WEBHOOK_ALLOW_PRIVATE=true to allow it`;
      }
    }
    return undefined;
  };
}
