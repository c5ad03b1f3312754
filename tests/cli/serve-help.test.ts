import { describe, expect, it } from 'vitest';
import { readConfig } from '../../src/composition/config.js';
import { petstoreHelp, SERVE_HELP } from '../../src/composition/petstore-help.js';
import { SETTINGS } from '../../src/composition/settings.js';

describe('petstore serve --help', () => {
  it('is what serve --help, serve -h and serve help answer, and serve alone is not help', () => {
    expect(petstoreHelp(['serve', '--help'])).toBe(SERVE_HELP);
    expect(petstoreHelp(['serve', '-h'])).toBe(SERVE_HELP);
    expect(petstoreHelp(['serve', 'help'])).toBe(SERVE_HELP);
    expect(petstoreHelp(['serve'])).toBeUndefined();
    expect(petstoreHelp(['keys', 'list'])).toBeUndefined();
  });

  it('lists serve among the commands of petstore --help', () => {
    expect(petstoreHelp(['--help'])).toMatch(/^ {2}serve {4}starts the HTTP service/m);
  });

  it('names every setting with the default that readConfig uses when it is unset', () => {
    const unset = readConfig({});
    for (const [name, { default: value }] of Object.entries(SETTINGS)) {
      expect(SERVE_HELP, name).toContain(`  ${name} `);
      if (value !== undefined) expect(readConfig({ [name]: value }), name).toEqual(unset);
    }
  });

  it('lists as unset only the settings that change something when set', () => {
    const unset = readConfig({});
    const examples: Record<string, string> = {
      DATABASE_URL: 'postgres://petstore@127.0.0.1:5432/petstore',
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_CLUSTER_NODES: '127.0.0.1:7000',
      PETSTORE_BASE_URL: 'https://petstore.example/v1',
      PETSTORE_STAGING_BASE_URL: 'https://staging.petstore.example/v1',
      PETSTORE_METRICS_PORT: '9464',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
    };
    const unsetNames = Object.entries(SETTINGS).filter(([, s]) => s.default === undefined);
    expect(unsetNames.map(([name]) => name).sort()).toEqual(Object.keys(examples).sort());
    for (const [name, value] of Object.entries(examples)) {
      expect(readConfig({ [name]: value }), name).not.toEqual(unset);
    }
  });
});
