import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consolePages } from '../../src/adapters/http/console-routes.js';
import { docsPages } from '../../src/adapters/http/docs-routes.js';
import { type HttpFixture, startHttpFixture, UNKNOWN_KEY } from './support/http-fixture.js';

const DEAD_KEY = { authorization: `Bearer ${UNKNOWN_KEY}` };
const CONSOLE_BUNDLE = { script: Buffer.from('"console";'), style: Buffer.from('body{}') };

describe('the pages and the OpenAPI document have a keyless budget of their own per address', () => {
  let fx: HttpFixture;
  beforeEach(async () => {
    fx = await startHttpFixture({ pages: [docsPages, consolePages(CONSOLE_BUNDLE)] });
  });
  afterEach(async () => {
    await fx.close();
  });

  /** Spends the address's keyless API day (the free plan's 1,000) as a tab polling with a dead key would. */
  const spendTheApiDay = async (): Promise<void> => {
    for (let sent = 0; sent < 1_000; sent += 1) {
      if (sent > 0 && sent % 60 === 0) fx.clock.advance(61_000);
      expect((await fx.call('/v1/inventory', { headers: DEAD_KEY })).status).toBe(401);
    }
    const refused = await fx.call('/v1/inventory', { headers: DEAD_KEY });
    expect(refused.status).toBe(429);
  };

  it('so /console, /docs and the document still answer 200 once the API day of the address is spent', async () => {
    await spendTheApiDay();
    for (const path of ['/console', '/console/console.js', '/console/console.css', '/docs', '/v1/openapi.json']) {
      const response = await fx.call(path);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
    }
  });

  it('and pages loaded in a loop spend that budget, not the API one', async () => {
    for (let sent = 0; sent < 60; sent += 1) await fx.call('/docs');
    expect((await fx.call('/docs')).status).toBe(429);
    expect((await fx.call('/v1/inventory', { headers: DEAD_KEY })).status).toBe(401);
  });
});

describe('an IPv6 client is limited by its /64', () => {
  it('so the addresses of one /64 share one keyless budget', async () => {
    const fx = await startHttpFixture({ trustProxy: true });
    try {
      for (let host = 1; host <= 60; host += 1) {
        const response = await fx.call('/v1/inventory', { headers: { 'x-forwarded-for': `2001:db8:1:2::${host}` } });
        expect(response.status).toBe(401);
      }
      const next = await fx.call('/v1/inventory', { headers: { 'x-forwarded-for': '2001:db8:1:2:ffff::61' } });
      expect(next.status).toBe(429);
      const otherSubnet = await fx.call('/v1/inventory', { headers: { 'x-forwarded-for': '2001:db8:1:3::1' } });
      expect(otherSubnet.status).toBe(401);
    } finally {
      await fx.close();
    }
  });
});
