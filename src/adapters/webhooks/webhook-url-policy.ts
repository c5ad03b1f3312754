import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { WebhookUrlCheck } from '../../application/ports/webhook-delivery.js';

/** The longest URL an endpoint may have. */
export const WEBHOOK_URL_MAX = 2_048;

// Where no webhook may go: the machine itself, the networks behind it, and the cloud metadata services
// (169.254.169.254 is link-local; AWS's IPv6 fd00:ec2::254 is unique-local; Alibaba's 100.100.100.200
// is in the carrier-grade NAT range), with the ranges no public host has.
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 127],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');
}

const MAPPED_IPV4 = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;

/** Why an address may not receive webhooks, or undefined when it may. */
export function forbiddenAddress(address: string): string | undefined {
  const mapped = MAPPED_IPV4.exec(address)?.[1];
  if (mapped !== undefined) return forbiddenAddress(mapped);
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  return FORBIDDEN.check(address, family === 6 ? 'ipv6' : 'ipv4')
    ? `${address} is a loopback, private, link-local or metadata address`
    : undefined;
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
