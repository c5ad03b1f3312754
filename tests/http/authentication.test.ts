import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aPet } from '../../src/testing/index.js';
import { type HttpFixture, jsonWith, startHttpFixture, UNKNOWN_KEY } from './support/http-fixture.js';

describe('authentication: Authorization: Bearer <key> on every /v1 operation', () => {
  let fx: HttpFixture;
  let bearer: string;
  beforeEach(async () => {
    fx = await startHttpFixture();
    bearer = await fx.bearer('free');
    await fx.addPets(aPet(1));
  });
  afterEach(async () => {
    await fx.close();
  });

  it.each([
    ['no Authorization header', undefined],
    ['another scheme', `Basic ${Buffer.from('user:pass').toString('base64')}`],
    ['the scheme without a token', 'Bearer'],
    ['a token with a space in it', `Bearer psk_abc def`],
    ['the scheme glued to the token', `Bearer${UNKNOWN_KEY}`],
    ['a token that is not a key', 'Bearer not-a-key'],
    ['a well-formed key nobody issued', `Bearer ${UNKNOWN_KEY}`],
  ])('answers 401 unauthorized with the Bearer challenge for %s', async (_, authorization) => {
    const response = await fx.call('/v1/inventory', authorization === undefined ? {} : { headers: { authorization } });
    expect(response.status).toBe(401);
    expect(JSON.parse(response.text)).toMatchObject({ code: 'unauthorized', status: 401 });
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="petstore"');
  });

  it('answers 401 for a key once it is revoked', async () => {
    expect((await fx.call('/v1/inventory', { headers: { authorization: bearer } })).status).toBe(200);
    const revoked = await fx.core.revokeApiKey.execute({ idOrKey: bearer.slice('Bearer '.length) });
    expect(revoked.ok).toBe(true);
    const response = await fx.call('/v1/inventory', { headers: { authorization: bearer } });
    expect(response.status).toBe(401);
    expect(JSON.parse(response.text)).toMatchObject({ code: 'unauthorized' });
  });

  it.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])('takes the scheme word in any case: %s', async (scheme) => {
    const key = bearer.slice('Bearer '.length);
    const response = await fx.call('/v1/inventory', { headers: { authorization: `${scheme} ${key}` } });
    expect(response.status).toBe(200);
  });

  it.each([
    ['GET', '/v1/inventory'],
    ['PATCH', '/v1/inventory/1'],
    ['GET', '/v1/pets/1'],
    ['GET', '/v1/store/orders'],
    ['GET', '/v1/no-such-thing'],
    ['DELETE', '/v1/inventory'],
  ])('refuses %s %s without a key before anything else is looked at', async (method, path) => {
    const response = await fx.call(path, { method, headers: jsonWith(`Bearer ${UNKNOWN_KEY}`), ...bodyFor(method) });
    expect(response.status).toBe(401);
  });

  it('does not ask for a key outside /v1', async () => {
    expect((await fx.call('/livez')).status).toBe(200);
    expect((await fx.call('/readyz')).status).toBe(200);
  });

  it('never writes the key or the Authorization header to the log', async () => {
    await fx.call('/v1/inventory', { headers: { authorization: bearer } });
    await fx.call('/v1/inventory', { headers: { authorization: `Bearer ${UNKNOWN_KEY}` } });
    const log = JSON.stringify(fx.logLines);
    expect(fx.logLines.length).toBeGreaterThanOrEqual(2);
    expect(log).not.toContain(bearer.slice('Bearer '.length));
    expect(log).not.toContain(UNKNOWN_KEY);
    expect(log.toLowerCase()).not.toContain('authorization');
  });
});

function bodyFor(method: string): RequestInit {
  return method === 'PATCH' ? { body: '{"quantity":1}' } : {};
}
