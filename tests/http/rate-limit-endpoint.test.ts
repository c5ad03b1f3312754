import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type HttpFixture, startHttpFixture } from './support/http-fixture.js';

let fx: HttpFixture;
beforeEach(async () => {
  fx = await startHttpFixture();
});
afterEach(async () => {
  await fx.close();
});

const LIMIT_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit-policy',
  'ratelimit',
];
const limitHeaders = (headers: Headers): Record<string, string | null> =>
  Object.fromEntries(LIMIT_HEADERS.map((name) => [name, headers.get(name)]));

interface Window {
  readonly limit: number;
  readonly remaining: number;
  readonly reset: number;
  readonly used: number;
}
interface Status {
  readonly key: Record<string, unknown>;
  readonly limits: { readonly minute: Window; readonly day: Window };
  readonly bannedUntil?: number;
}

describe('GET /v1/rate_limit', () => {
  it('answers the key and both windows as the last request left them, and counts nothing', async () => {
    const { authorization, id } = await fx.issue({ scopes: ['inventory:read'] });
    const before = await fx.call('/v1/store/orders', { headers: { authorization } });
    fx.clock.advance(1_500);
    const status = await fx.call('/v1/rate_limit', { headers: { authorization } });
    expect(status.status).toBe(200);
    const body = JSON.parse(status.text) as Status;
    expect(body.key).toEqual({ id, name: null, plan: 'free', scopes: ['inventory:read'], expiresAt: null });
    const reset = Number(before.headers.get('x-ratelimit-reset'));
    expect(body.limits).toEqual({
      minute: { limit: 60, remaining: 59, reset, used: 1 },
      day: { limit: 1000, remaining: 999, reset: expect.any(Number), used: 1 },
    });
    expect(body).not.toHaveProperty('bannedUntil');
    // Its headers are those the requests left, and asking again changes nothing.
    expect(status.headers.get('x-ratelimit-remaining')).toBe('59');
    expect(status.headers.get('x-ratelimit-reset')).toBe(String(reset));
    const again = await fx.call('/v1/rate_limit', { headers: { authorization } });
    expect(limitHeaders(again.headers)).toEqual(limitHeaders(status.headers));
    expect(JSON.parse(again.text)).toEqual(body);
    // The next request starts from exactly what it reported.
    const next = await fx.call('/v1/store/orders', { headers: { authorization } });
    expect(next.headers.get('x-ratelimit-limit')).toBe(String(body.limits.minute.limit));
    expect(next.headers.get('x-ratelimit-remaining')).toBe(String(body.limits.minute.remaining - 1));
    expect(next.headers.get('x-ratelimit-reset')).toBe(String(body.limits.minute.reset));
  });

  it('answers while the key’s other requests get 429, and tells when a ban ends', async () => {
    const { authorization } = await fx.issue();
    for (let i = 0; i < 60; i += 1) await fx.call('/v1/store/orders', { headers: { authorization } });
    expect((await fx.call('/v1/store/orders', { headers: { authorization } })).status).toBe(429);
    const spent = await fx.call('/v1/rate_limit', { headers: { authorization } });
    expect(spent.status).toBe(200);
    expect((JSON.parse(spent.text) as Status).limits.minute).toMatchObject({ remaining: 0, used: 60 });
    expect(spent.headers.get('x-ratelimit-remaining')).toBe('0');
    for (let i = 0; i < 19; i += 1) await fx.call('/v1/store/orders', { headers: { authorization } });
    const banned = await fx.call('/v1/store/orders', { headers: { authorization } });
    expect(JSON.parse(banned.text)).toMatchObject({ code: 'key_banned' });
    const during = await fx.call('/v1/rate_limit', { headers: { authorization } });
    expect(during.status).toBe(200);
    const body = JSON.parse(during.text) as Status;
    expect(body.bannedUntil).toBe(Math.ceil((fx.clock.nowMs() + 300_000) / 1000));
    expect(during.headers.get('x-ratelimit-reset')).toBe(String(body.bannedUntil));
  });

  it('shares the standing of an old and a new key of a roll', async () => {
    const old = await fx.issue();
    await fx.call('/v1/store/orders', { headers: { authorization: old.authorization } });
    const rolled = await fx.core.rollApiKey.execute({ id: old.id, graceMs: 60_000, actor: 'ops' });
    if (!rolled.ok) throw new Error(rolled.error.message);
    const status = await fx.call('/v1/rate_limit', { headers: { authorization: `Bearer ${rolled.value.key}` } });
    const body = JSON.parse(status.text) as Status;
    expect(body.key.id).toBe(rolled.value.record.id);
    expect(body.limits.minute.used).toBe(1);
  });

  it('is limited per client address and answers 401 without a valid key, key_expired for an expired one', async () => {
    const anonymous = await fx.call('/v1/rate_limit');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('x-ratelimit-remaining')).toBe('59');
    const { authorization } = await fx.issue({ expiresInMs: 1_000 });
    fx.clock.advance(1_000);
    const expired = await fx.call('/v1/rate_limit', { headers: { authorization } });
    expect(JSON.parse(expired.text)).toMatchObject({ code: 'key_expired' });
  });
});
