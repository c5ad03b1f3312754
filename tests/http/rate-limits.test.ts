import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aPet } from '../../src/testing/index.js';
import { type ApiResponse, type HttpFixture, jsonWith, startHttpFixture, UNKNOWN_KEY } from './support/http-fixture.js';

const UNKNOWN_BEARER = `Bearer ${UNKNOWN_KEY}`;
const FREE_POLICY = '"minute";q=60;w=60, "day";q=1000;w=86400';

const codeOf = (response: ApiResponse): string => (JSON.parse(response.text) as { code: string }).code;

describe('rate limits', () => {
  let fx: HttpFixture;
  let free: string;
  beforeEach(async () => {
    fx = await startHttpFixture();
    free = await fx.bearer('free');
    await fx.addPets(aPet(1));
  });
  afterEach(async () => {
    await fx.close();
  });

  const burst = async (n: number, authorization = free): Promise<ApiResponse[]> => {
    const out: ApiResponse[] = [];
    for (let i = 0; i < n; i += 1) out.push(await fx.call('/v1/inventory', { headers: { authorization } }));
    return out;
  };

  describe('the headers on every /v1 response', () => {
    it('reports the window nearest exhaustion, Reset in Unix seconds rounded up, and both draft fields', async () => {
      const response = await fx.call('/v1/inventory', { headers: { authorization: free } });
      const nowSeconds = fx.clock.nowMs() / 1000;
      expect(response.headers.get('x-ratelimit-limit')).toBe('60');
      expect(response.headers.get('x-ratelimit-remaining')).toBe('59');
      // The request sits in the current one-second bucket, which leaves the minute window 61 s on.
      expect(response.headers.get('x-ratelimit-reset')).toBe(String(nowSeconds + 61));
      expect(response.headers.get('ratelimit-policy')).toBe(FREE_POLICY);
      expect(response.headers.get('ratelimit')).toBe('"minute";r=59;t=61');
    });

    it('rounds Reset up to the next whole second', async () => {
      fx.clock.advance(400);
      const response = await fx.call('/v1/inventory', { headers: { authorization: free } });
      expect(response.headers.get('x-ratelimit-reset')).toBe(String(Math.ceil((fx.clock.nowMs() + 60_600) / 1000)));
      expect(response.headers.get('ratelimit')).toBe('"minute";r=59;t=61');
    });

    it('gives a key the limits of its plan, or its own on the enterprise plan', async () => {
      const pro = await fx.call('/v1/inventory', { headers: { authorization: await fx.bearer('pro') } });
      expect(pro.headers.get('ratelimit-policy')).toBe('"minute";q=300;w=60, "day";q=10000;w=86400');
      const custom = await fx.bearer('enterprise', { perMinute: 50_000, perDay: 20_000 });
      const enterprise = await fx.call('/v1/inventory', { headers: { authorization: custom } });
      expect(enterprise.headers.get('ratelimit-policy')).toBe('"minute";q=50000;w=60, "day";q=20000;w=86400');
      // The day has fewer left than the minute, so it is the window to watch.
      expect(enterprise.headers.get('x-ratelimit-limit')).toBe('20000');
      expect(enterprise.headers.get('x-ratelimit-remaining')).toBe('19999');
      expect(enterprise.headers.get('ratelimit')).toMatch(/^"day";r=19999;t=\d+$/);
    });

    it.each([
      ['200', 'GET', '/v1/inventory', 'key', undefined],
      ['400', 'PATCH', '/v1/inventory/abc', 'key', '{"quantity":1}'],
      ['401', 'GET', '/v1/inventory', 'none', undefined],
      ['404', 'GET', '/v1/nothing-here', 'key', undefined],
      ['405', 'DELETE', '/v1/inventory', 'key', undefined],
      ['413', 'PATCH', '/v1/inventory/1', 'key', `{"quantity":1,"pad":"${'x'.repeat(17_000)}"}`],
      ['415', 'PATCH', '/v1/inventory/1', 'text', '{"quantity":1}'],
    ])('are on a %s too', async (status, method, path, auth, body) => {
      const headers =
        auth === 'none' ? {} : auth === 'text' ? { authorization: free, 'content-type': 'text/plain' } : jsonWith(free);
      const response = await fx.call(path, { method, headers, ...(body === undefined ? {} : { body }) });
      expect(String(response.status)).toBe(status);
      for (const name of [
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
        'ratelimit-policy',
        'ratelimit',
      ]) {
        expect(response.headers.get(name), name).not.toBeNull();
      }
    });

    it('are on a 429 too, with nothing remaining', async () => {
      const refused = (await burst(61))[60] as ApiResponse;
      expect(refused.status).toBe(429);
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(refused.headers.get('ratelimit')).toMatch(/^"minute";r=0;t=\d+$/);
    });

    it('are not on the probes outside /v1', async () => {
      const response = await fx.call('/livez');
      expect(response.headers.get('x-ratelimit-limit')).toBeNull();
    });
  });

  describe('a free key: 60 a minute', () => {
    it('admits 60, counting Remaining down, then answers 429 rate_limited with Retry-After', async () => {
      const responses = await burst(61);
      expect(responses.slice(0, 60).map((r) => r.status)).toEqual(Array(60).fill(200));
      expect(responses.slice(0, 60).map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(
        Array.from({ length: 60 }, (_, i) => String(59 - i)),
      );
      const refused = responses[60] as ApiResponse;
      expect(refused.status).toBe(429);
      expect(codeOf(refused)).toBe('rate_limited');
      expect(refused.headers.get('retry-after')).toBe('61');
    });

    it('admits again once Retry-After has passed, and not a second before', async () => {
      const refused = (await burst(61))[60] as ApiResponse;
      const retryAfterMs = Number(refused.headers.get('retry-after')) * 1000;
      fx.clock.advance(retryAfterMs - 1000);
      expect((await burst(1))[0]?.status).toBe(429);
      fx.clock.advance(1000);
      expect((await burst(1))[0]?.status).toBe(200);
    });

    it('admits exactly 60 of 400 concurrent requests', async () => {
      const responses = await Promise.all(
        Array.from({ length: 400 }, () => fx.call('/v1/inventory', { headers: { authorization: free } })),
      );
      expect(responses.filter((r) => r.status === 200)).toHaveLength(60);
      expect(responses.filter((r) => r.status === 429)).toHaveLength(340);
    });
  });

  describe('the ban', () => {
    it('bans the key for 300 s at the 20th refusal within a minute: 429 key_banned, Retry-After 300', async () => {
      await burst(60);
      const refusals = await burst(20);
      expect(refusals.slice(0, 19).map(codeOf)).toEqual(Array(19).fill('rate_limited'));
      const banned = refusals[19] as ApiResponse;
      expect(codeOf(banned)).toBe('key_banned');
      expect(banned.headers.get('retry-after')).toBe('300');
    });

    it('keeps the key out while banned, even once its minute has passed', async () => {
      await burst(80);
      fx.clock.advance(120_000);
      const response = (await burst(1))[0] as ApiResponse;
      expect(codeOf(response)).toBe('key_banned');
      expect(response.headers.get('retry-after')).toBe('180');
      fx.clock.advance(180_000);
      expect((await burst(1))[0]?.status).toBe(200);
    });
  });

  describe('requests without a valid key: limited per client address with the free plan’s numbers', () => {
    it('answers 60 of them 401, then 429 for the address', async () => {
      const responses = await burst(61, UNKNOWN_BEARER);
      expect(responses.slice(0, 60).every((r) => r.status === 401)).toBe(true);
      expect(responses[0]?.headers.get('ratelimit-policy')).toBe(FREE_POLICY);
      expect(responses[59]?.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(responses[60]?.status).toBe(429);
      expect(codeOf(responses[60] as ApiResponse)).toBe('rate_limited');
    });

    it('never blocks a request with a valid key from a limited or banned address', async () => {
      await burst(80, UNKNOWN_BEARER);
      expect(codeOf((await burst(1, UNKNOWN_BEARER))[0] as ApiResponse)).toBe('key_banned');
      const response = (await burst(1, free))[0] as ApiResponse;
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-remaining')).toBe('59');
    });

    it('does not spend a key’s quota on the address’s requests', async () => {
      await burst(10, UNKNOWN_BEARER);
      expect((await burst(1, free))[0]?.headers.get('x-ratelimit-remaining')).toBe('59');
    });
  });
});

describe('the client address behind a proxy', () => {
  const anonymous = async (fx: HttpFixture, forwardedFor: string): Promise<ApiResponse> =>
    fx.call('/v1/inventory', { headers: { 'x-forwarded-for': forwardedFor } });

  it('is the entry the proxy appended (the last) when the proxy is trusted', async () => {
    const fx = await startHttpFixture({ trustProxy: true });
    try {
      for (let i = 0; i < 60; i += 1) await anonymous(fx, `198.51.100.${i}, 203.0.113.7`);
      // The forged entries to the left changed every time; the address the proxy saw did not.
      expect((await anonymous(fx, '192.0.2.1, 203.0.113.7')).status).toBe(429);
      expect((await anonymous(fx, '203.0.113.8')).headers.get('x-ratelimit-remaining')).toBe('59');
    } finally {
      await fx.close();
    }
  });

  it('ignores X-Forwarded-For when no proxy is trusted', async () => {
    const fx = await startHttpFixture({ trustProxy: false });
    try {
      for (let i = 0; i < 60; i += 1) await anonymous(fx, `203.0.113.${i}`);
      expect((await anonymous(fx, '203.0.113.200')).status).toBe(429);
    } finally {
      await fx.close();
    }
  });
});
