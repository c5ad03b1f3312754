import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliHarness, cliHarness, expectRefused, START } from './cli-harness.js';

let cli: CliHarness;
beforeEach(async () => {
  cli = await cliHarness();
});
afterEach(async () => {
  await cli.close();
});

// A public address written as a literal: registering it needs no name resolved, and nothing is sent.
const PUBLIC_URL = 'https://93.184.216.34/hooks/stock';

describe('webhooks add', () => {
  it('prints the signing secret alone on stdout, once, and the endpoint id on stderr', async () => {
    const result = await cli.run(
      'webhooks',
      'add',
      '--url',
      PUBLIC_URL,
      '--events',
      'inventory.updated,inventory.low_stock',
      '--low-stock-threshold',
      '3',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^whsec_[A-Za-z0-9+/]{32}\n$/);
    const [endpoint] = await cli.storage.webhooks.endpoints();
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^whk_[0-9A-Za-z]{16}$/),
      url: PUBLIC_URL,
      events: ['inventory.updated', 'inventory.low_stock'],
      lowStockThreshold: 3,
      enabled: true,
      failingSinceMs: null,
      createdAtMs: START,
    });
    expect(result.stderr).toContain(`added ${endpoint?.id}; the secret is shown only this once`);
    const list = await cli.run('webhooks', 'list', '--json');
    expect(list.stdout).not.toContain(result.stdout.trim());
    expect(JSON.parse(list.stdout)).toMatchObject({ id: endpoint?.id, enabled: true, failingSince: null });
  });

  it('refuses a URL to the metadata service, to loopback, to a private network or over http, without the setting', async () => {
    for (const url of [
      'https://169.254.169.254/latest/meta-data/',
      'https://127.0.0.1:8443/hook',
      'https://[::1]/hook',
      'https://10.1.2.3/hook',
      'https://[::ffff:192.168.0.1]/hook',
      'http://93.184.216.34/hook',
      'https://user:pass@93.184.216.34/hook',
      'not a url',
    ]) {
      await expectRefused(cli, ['webhooks', 'add', '--url', url, '--events', 'inventory.updated'], '--url refused: ');
    }
    await expectRefused(
      cli,
      ['webhooks', 'add', '--url', 'https://169.254.169.254/', '--events', 'inventory.updated'],
      "169.254.169.254 is not a public address (IANA's linkLocal range); set PETSTORE_WEBHOOK_ALLOW_PRIVATE=true",
    );
  });

  it.each([
    ['a deprecated site-local address', 'https://[fec0::1]/hook'],
    ['the 6to4 relay anycast range', 'https://192.88.99.1/hook'],
    ['the IPv6 benchmarking range', 'https://[2001:2::1]/hook'],
    ['an ORCHIDv2 address', 'https://[2001:20::1]/hook'],
    ['the metadata service', 'https://169.254.169.254/latest/meta-data/'],
  ])("refuses %s by IANA's special-purpose registries, and stores nothing", async (_, url) => {
    await expectRefused(
      cli,
      ['webhooks', 'add', '--url', url, '--events', 'inventory.updated'],
      'is not a public address (IANA',
    );
    expect(await cli.storage.webhooks.endpoints()).toEqual([]);
  });

  it('refuses an unknown event, and a threshold without low_stock or low_stock without a threshold', async () => {
    await expectRefused(cli, ['webhooks', 'add', '--url', PUBLIC_URL, '--events', 'inventory.sold'], '--events takes');
    await expectRefused(
      cli,
      ['webhooks', 'add', '--url', PUBLIC_URL, '--events', 'inventory.low_stock'],
      '--low-stock-threshold goes with inventory.low_stock',
    );
    await expectRefused(
      cli,
      ['webhooks', 'add', '--url', PUBLIC_URL, '--events', 'inventory.updated', '--low-stock-threshold', '2'],
      '--low-stock-threshold goes with inventory.low_stock',
    );
  });
});

describe('webhooks remove, enable and deliveries', () => {
  it('names an unknown id, and removes, enables and lists the attempts of a known one', async () => {
    await cli.run('webhooks', 'add', '--url', PUBLIC_URL, '--events', 'inventory.updated');
    const [endpoint] = await cli.storage.webhooks.endpoints();
    const id = endpoint?.id as string;
    await expectRefused(cli, ['webhooks', 'remove', 'whk_none'], 'no webhook endpoint has id "whk_none"');
    await expectRefused(cli, ['webhooks', 'enable', 'whk_none'], 'no webhook endpoint has id "whk_none"');
    await expectRefused(cli, ['webhooks', 'deliveries', 'whk_none'], 'no webhook endpoint has id "whk_none"');
    expect(await cli.run('webhooks', 'deliveries', id)).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'no attempt yet\n',
    });
    expect(JSON.parse((await cli.run('webhooks', 'enable', id)).stdout)).toMatchObject({ id, enabled: true });
    expect(await cli.run('webhooks', 'remove', id)).toMatchObject({ code: 0, stderr: `removed ${id}\n` });
    expect(await cli.storage.webhooks.endpoints()).toEqual([]);
  });
});
