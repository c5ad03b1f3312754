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

  it('lets http and inside addresses through with PETSTORE_WEBHOOK_ALLOW_PRIVATE, and never credentials', async () => {
    const open = webhookUrlCheck(true, resolver({}));
    expect(await open('http://127.0.0.1:8080/hook')).toBeUndefined();
    expect(await open('https://169.254.169.254/')).toBeUndefined();
    expect(await open('ftp://127.0.0.1/')).toBe('the URL must be https');
    expect(await open('http://user:secret@127.0.0.1/')).toBe('the URL must not carry a user name or password');
  });
});
