import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { WebhookUrlCheck } from '../../application/ports/webhook-delivery.js';

/** The longest URL an endpoint may have. */
export const WEBHOOK_URL_MAX = 2_048;

// Where no webhook may go: the machine itself, the networks behind it, and the cloud metadata services
// (169.254.169.254 is link-local; AWS's IPv6 fd00:ec2::254 is unique-local; Alibaba's 100.100.100.200
// is in the carrier-grade NAT range), with the ranges no public host has: the documentation ranges
// (RFC 5737, 3849, 9637) name no real receiver, so one that answers there is not the one intended.
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 127],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 32],
  ['2001:db8::', 32],
  ['3fff::', 20],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');
}

/**
 * The IPv4 address an IPv6 one carries and reaches, or undefined: IPv4-mapped (::ffff:0:0/96) and
 * IPv4-translated (::ffff:0:0:0/96) addresses, the deprecated IPv4-compatible ones (::/96, which
 * `[::127.0.0.1]` spells), NAT64's well-known prefix (64:ff9b::/96) and 6to4 (2002::/16, the IPv4 in
 * bits 16 to 48). Each is routed to that IPv4 address by the host's stack or a gateway, so it is
 * judged as that address. Teredo (2001::/32) is refused whole: it tunnels to whatever its relay reaches.
 */
function embeddedIpv4(words: readonly number[]): string | undefined {
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

/** An IPv6 address as its eight 16-bit words (a dotted IPv4 tail read as the last two). */
function ipv6Words(address: string): number[] {
  const dottedTail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  let text = address;
  if (dottedTail !== null) {
    const [a, b, c, d] = dottedTail.slice(1).map(Number) as [number, number, number, number];
    text = `${address.slice(0, dottedTail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((w) => Number.parseInt(w, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/** Why an address may not receive webhooks, or undefined when it may. */
export function forbiddenAddress(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  const refused = `${address} is a loopback, private, link-local, metadata, documentation or tunnel address`;
  if (family === 4) return FORBIDDEN.check(address, 'ipv4') ? refused : undefined;
  const embedded = embeddedIpv4(ipv6Words(address.replace(/%.*$/, '')));
  if (embedded !== undefined) {
    return forbiddenAddress(embedded) === undefined ? undefined : `${refused} (it reaches ${embedded})`;
  }
  return FORBIDDEN.check(address, 'ipv6') ? refused : undefined;
}

/** Resolves a name to every address it has, as the connection would. */
export type Resolve = (host: string) => Promise<readonly string[]>;

const resolveAll: Resolve = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

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
