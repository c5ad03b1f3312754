import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../../src/composition/config.js';

describe('REDIS_CLUSTER_NODES: the limiter on a Redis Cluster', () => {
  it('is unset by default', () => {
    expect(readConfig({}).redisClusterNodes).toBeUndefined();
  });

  it('reads a comma-separated list of masters as host:port, an IPv6 address in brackets', () => {
    const c = readConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-b.internal:7001,[::1]:7002' });
    expect(c.redisClusterNodes).toEqual([
      { host: '10.0.0.1', port: 7000 },
      { host: 'redis-b.internal', port: 7001 },
      { host: '::1', port: 7002 },
    ]);
    expect(c.redisUrl).toBeUndefined();
  });

  it.each([
    '10.0.0.1',
    '10.0.0.1:0',
    '10.0.0.1:65536',
    '10.0.0.1:7000,',
    'redis://10.0.0.1:7000',
    '::1:7000',
    'host:7000:1',
  ])('stops on REDIS_CLUSTER_NODES=%s with a message naming the variable', (value) => {
    expect(() => readConfig({ REDIS_CLUSTER_NODES: value })).toThrow(ConfigError);
    expect(() => readConfig({ REDIS_CLUSTER_NODES: value })).toThrow(
      /^REDIS_CLUSTER_NODES=".*": must be a comma-separated list of host:port/,
    );
  });

  it('refuses a cluster and one server at once', () => {
    expect(() => readConfig({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: '127.0.0.1:7000' })).toThrow(
      /^REDIS_CLUSTER_NODES: set it or REDIS_URL, not both/,
    );
  });
});
