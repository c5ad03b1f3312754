import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aPet } from '../../src/testing/index.js';
import { type HttpFixture, startHttpFixture } from './support/http-fixture.js';

const requestLines = (fx: HttpFixture) => fx.logLines.filter((line) => line.msg === 'request');

describe('the access log', () => {
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

  it('logs the route template of a routed request, never its ids', async () => {
    await fx.call('/v1/inventory/1', { headers: { authorization: bearer } });
    await fx.call('/v1/pets/1', { headers: { authorization: bearer } });
    expect(requestLines(fx).map((line) => line.route)).toEqual(['/v1/inventory/:petId', '/v1/pets/:petId']);
  });

  it('never writes a key that a client put in the path', async () => {
    const key = bearer.slice('Bearer '.length);
    await fx.call(`/v1/${key}`);
    await fx.call(`/v1/inventory/${key}/x`, { headers: { authorization: bearer } });
    await fx.call(`/v1/a%2F${key}`);
    await fx.call(`/v1/%70sk_${key.slice('psk_'.length)}`);
    const text = JSON.stringify(fx.logLines);
    expect(text).not.toContain(key.slice('psk_'.length, 12));
    expect(requestLines(fx).map((line) => line.route)).toEqual([
      '/v1/psk_[redacted]',
      '/v1/inventory/psk_[redacted]/x',
      '/v1/a%2Fpsk_[redacted]',
      '/v1/psk_[redacted]',
    ]);
  });

  it('never writes a key sent in the path without its psk_ prefix', async () => {
    const body = bearer.slice('Bearer psk_'.length);
    expect(body).toMatch(/^[A-Za-z0-9]{40}$/);
    await fx.call(`/v1/${body}`);
    await fx.call(`/v1/inventory/x${body}y/z`, { headers: { authorization: bearer } });
    expect(JSON.stringify(fx.logLines)).not.toContain(body.slice(0, 12));
    expect(requestLines(fx).map((line) => line.route)).toEqual(['/v1/[redacted]', '/v1/inventory/[redacted]/z']);
  });

  it('keeps a long unrouted path to at most 200 characters', async () => {
    await fx.call(`/v1/${'a-'.repeat(8_000)}`, { headers: { authorization: bearer } });
    const [line] = requestLines(fx);
    expect(String(line?.route).length).toBeLessThanOrEqual(200);
    expect(String(line?.route)).toMatch(/^\/v1\/(a-)+a?…$/);
  });

  it('answers junk outside /v1 without a line at info, however much of it comes', async () => {
    for (let i = 0; i < 50; i += 1) {
      const response = await fx.call(`/${'x'.repeat(8_000)}${i}`);
      expect(response.status).toBe(404);
    }
    expect(fx.logLines).toEqual([]);
  });

  it('still logs the probes and the API under /v1 without a key', async () => {
    await fx.call('/livez');
    await fx.call('/v1/nowhere');
    expect(requestLines(fx).map((line) => [line.route, line.status])).toEqual([
      ['/livez', 200],
      ['/v1/nowhere', 401],
    ]);
  });
});
