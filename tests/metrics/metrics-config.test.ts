import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../../src/composition/config.js';

describe('the metrics settings', () => {
  it('keep metrics on, served on the API port, unless told otherwise', () => {
    expect(readConfig({})).toMatchObject({ metrics: true, metricsPort: undefined });
  });

  it('read PETSTORE_METRICS and PETSTORE_METRICS_PORT', () => {
    expect(readConfig({ PETSTORE_METRICS: 'off' })).toMatchObject({ metrics: false });
    expect(readConfig({ PETSTORE_METRICS_PORT: '9464' })).toMatchObject({ metrics: true, metricsPort: 9464 });
  });

  it.each([
    [{ PETSTORE_METRICS: 'maybe' }, /^PETSTORE_METRICS="maybe": /],
    [{ PETSTORE_METRICS_PORT: 'nine' }, /^PETSTORE_METRICS_PORT="nine": /],
    [{ PETSTORE_METRICS_PORT: '8080' }, /^PETSTORE_METRICS_PORT: must differ from PORT/],
    [{ PETSTORE_METRICS_PORT: '9464', PETSTORE_METRICS: 'off' }, /^PETSTORE_METRICS_PORT: needs PETSTORE_METRICS=on/],
  ])('stop the start on %o with a message naming the variable', (env, message) => {
    expect(() => readConfig(env)).toThrow(ConfigError);
    expect(() => readConfig(env)).toThrow(message);
  });
});
