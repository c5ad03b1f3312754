import { describe, expect, it } from 'vitest';
import { clientOfAddress } from '../../src/adapters/http/client-address.js';

describe('the client an address stands for, as the caps and the per-address limits count it', () => {
  it.each([
    ['an IPv4 address is itself', '203.0.113.7', '203.0.113.7'],
    ['an IPv4-mapped IPv6 address is its IPv4 address', '::ffff:203.0.113.7', '203.0.113.7'],
    ['an IPv6 address is its /64', '2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['another address of the same /64 is the same client', '2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['a compressed prefix is expanded', '2001:db8::5', '2001:db8:0:0::/64'],
    ['leading zeros and case do not matter', '2001:0DB8:0001:0002::9', '2001:db8:1:2::/64'],
    ['the loopback is the zero /64', '::1', '0:0:0:0::/64'],
    ['a zone is dropped', 'fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['a dotted IPv4 tail in IPv6 stays in the interface half', '64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
    ['no address is kept as it is', '', ''],
  ])('%s', (_rule, address, client) => {
    expect(clientOfAddress(address)).toBe(client);
  });

  it('tells two /64s apart', () => {
    expect(clientOfAddress('2001:db8:1:2::1')).not.toBe(clientOfAddress('2001:db8:1:3::1'));
  });
});
