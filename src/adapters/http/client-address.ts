import { isIPv4, isIPv6 } from 'node:net';

/** How many leading bits of an IPv6 address name one client: a /64, the smallest subnet a site is given. */
const IPV6_CLIENT_PREFIX_HEXTETS = 4;

const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** The eight hextets of an IPv6 address (a trailing dotted IPv4 part read as the last two). */
function hextetsOf(address: string): number[] {
  const [head = '', tail] = address.split('::');
  const groupsOf = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [Number.parseInt(group, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const front = groupsOf(head);
  const back = tail === undefined ? [] : groupsOf(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/**
 * The client a connection's or a request's address stands for, as the connection caps and the
 * per-address limits count it: an IPv4 address itself (an IPv4-mapped IPv6 one as its IPv4 address),
 * and an IPv6 address by its /64 (`2001:db8:1:2::/64`), since one host is routinely given a whole /64
 * and can take as many of its addresses as it likes. Anything else (no address) is kept as it is.
 */
export function clientOfAddress(address: string): string {
  const unzoned = address.split('%')[0] ?? address;
  const mapped = MAPPED_IPV4.exec(unzoned);
  if (mapped?.[1] !== undefined && isIPv4(mapped[1])) return mapped[1];
  if (!isIPv6(unzoned)) return address;
  const prefix = hextetsOf(unzoned).slice(0, IPV6_CLIENT_PREFIX_HEXTETS);
  return `${prefix.map((hextet) => hextet.toString(16)).join(':')}::/64`;
}
