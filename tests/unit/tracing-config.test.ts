import { describe, expect, it } from 'vitest';
import { readConfig } from '../../src/composition/config.js';

describe('OTEL_EXPORTER_OTLP_ENDPOINT: traces over OTLP/HTTP', () => {
  it('is off by default', () => {
    expect(readConfig({}).tracing).toBeUndefined();
  });

  it('reads the collector’s URL', () => {
    expect(readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.internal:4318' }).tracing).toEqual({
      endpoint: 'http://collector.internal:4318',
    });
  });

  it.each(['collector:4318', 'grpc://collector:4317', 'http://'])('stops on %s, without printing it', (value) => {
    expect(() => readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: value })).toThrow(
      /^OTEL_EXPORTER_OTLP_ENDPOINT=\(value not shown\): must be the URL of an OTLP\/HTTP collector/,
    );
  });
});
