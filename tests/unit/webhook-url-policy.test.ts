import { describe, expect, it } from 'vitest';
import { forbiddenAddress, webhookUrlCheck } from '../../src/adapters/webhooks/webhook-url-policy.js';

// A resolver that answers from a table: no name is ever looked up on the network.
const resolver = (table: Record<string, string[]>) => async (host: string) => {
  const found = table[host];
  if (found === undefined) throw new Error(`ENOTFOUND ${host}`);
  return found;
};

describe('the rule for webhook URLs', () => {
  const check = webhookUrlCheck(
    false,
    resolver({
      'hooks.example': ['93.184.216.34', '2606:2800:220:1::1'],
      'metadata.google.internal': ['169.254.169.254'],
      'rebound.example': ['93.184.216.34', '10.0.0.7'],
    }),
  );

  it('takes an https URL whose every address is public', async () => {
    expect(await check('https://hooks.example/stock')).toBeUndefined();
    expect(await check('https://93.184.216.34:8443/stock')).toBeUndefined();
  });

  it('refuses a name that resolves to the metadata service, or to any inside address among public ones', async () => {
    expect(await check('https://metadata.google.internal/computeMetadata/v1/')).toContain('169.254.169.254');
    expect(await check('https://rebound.example/')).toContain('10.0.0.7');
    expect(await check('https://nowhere.example/')).toBe('the host nowhere.example does not resolve');
  });

  it('refuses every loopback, private, link-local, metadata and unroutable address, in IPv4 and IPv6', () => {
    for (const address of [
      '127.0.0.1',
      '127.8.9.1',
      '0.0.0.0',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.100.100.200',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      'fc00::1',
      '::ffff:127.0.0.1',
      '64:ff9b::a00:1',
    ]) {
      expect(forbiddenAddress(address), address).toBeDefined();
    }
    for (const address of ['93.184.216.34', '172.32.0.1', '8.8.8.8', '2606:2800:220:1::1']) {
      expect(forbiddenAddress(address), address).toBeUndefined();
    }
  });

  it.each([
    ['an IPv4-compatible loopback', 'https://[::127.0.0.1]/hook', '127.0.0.1'],
    ['an IPv4-mapped loopback in hex', 'https://[::ffff:7f00:1]/hook', '127.0.0.1'],
    ['an IPv4-translated private address', 'https://[::ffff:0:a00:1]/hook', '10.0.0.1'],
    ['a 6to4 address of the loopback', 'https://[2002:7f00:1::]/hook', '127.0.0.1'],
    ['a 6to4 address of the metadata service', 'https://[2002:a9fe:a9fe::1]/hook', '169.254.169.254'],
    ['a NAT64 address of a private one', 'https://[64:ff9b::192.168.0.1]/hook', '192.168.0.1'],
    ['a NAT64 address of the loopback', 'https://[64:ff9b::7f00:1]/hook', '127.0.0.1'],
  ])('refuses %s, judged as the IPv4 address it reaches', async (_, url, reached) => {
    expect(await check(url)).toContain(`it reaches ${reached}`);
  });

  it('refuses the documentation ranges, Teredo and local NAT64, in a URL or behind a name', async () => {
    for (const address of [
      '192.0.2.1',
      '198.51.100.7',
      '203.0.113.255',
      '2001:db8::1',
      '2001:db8:ffff::1',
      '3fff::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '2001::1',
      '64:ff9b:1::a00:1',
    ]) {
      expect(forbiddenAddress(address), address).toMatch(/is not a public address \(IANA's \w+ range\)/);
    }
    const named = webhookUrlCheck(false, resolver({ 'docs.example': ['93.184.216.34', '198.51.100.1'] }));
    expect(await named('https://docs.example/')).toContain('198.51.100.1');
    expect(await check('https://[2001:db8::1]/')).toMatch(/reserved/);
    expect(await check('https://203.0.113.9/')).toMatch(/reserved/);
  });

  it("refuses every range of IANA's special-purpose registries and IPv6 outside global unicast, named or literal", async () => {
    for (const address of [
      'fec0::1',
      '192.88.99.1',
      '2001:2::1',
      '2001:20::1',
      '2001:10::1',
      '2001:3::1',
      '192.31.196.1',
      '5f00::1',
      '100::1',
      '4000::1',
      '255.255.255.255',
    ]) {
      expect(forbiddenAddress(address), address).toMatch(/is not a public address/);
    }
    const named = webhookUrlCheck(false, resolver({ 'relay.example': ['93.184.216.34', 'fec0::7'] }));
    expect(await named('https://relay.example/')).toContain('fec0::7');
  });

  it('takes an IPv6 form of a public IPv4 address as that address', () => {
    for (const address of ['::ffff:93.184.216.34', '::ffff:5db8:d822', '2002:5db8:d822::1', '64:ff9b::5db8:d822']) {
      expect(forbiddenAddress(address), address).toBeUndefined();
    }
  });

  it('lets http and inside addresses through with PETSTORE_WEBHOOK_ALLOW_PRIVATE, and never credentials', async () => {
    const open = webhookUrlCheck(true, resolver({}));
    expect(await open('http://127.0.0.1:8080/hook')).toBeUndefined();
    expect(await open('https://169.254.169.254/')).toBeUndefined();
    expect(await open('ftp://127.0.0.1/')).toBe('the URL must be https');
    expect(await open('http://user:secret@127.0.0.1/')).toBe('the URL must not carry a user name or password');
  });
});
