import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { quantity } from '../../src/domain/quantity.js';
import { aPet } from '../../src/testing/index.js';
import { type HttpFixture, jsonWith, startHttpFixture } from './support/http-fixture.js';

describe('PATCH bodies the JSON parser cannot take: 400 invalid_body, never a 500', () => {
  let fx: HttpFixture;
  let key: string;
  beforeEach(async () => {
    fx = await startHttpFixture();
    key = await fx.bearer('enterprise', { perMinute: 100_000, perDay: 1_000_000 });
    await fx.addPets(aPet(1, { quantity: quantity(5) }));
  });
  afterEach(async () => {
    await fx.close();
  });

  // Each is under the 16 KiB body limit; a recursive parser overflows its stack on the first two.
  it.each([
    ['5,000 opening brackets', '['.repeat(5_000)],
    ['5,000 nested arrays, closed', `${'['.repeat(5_000)}${']'.repeat(5_000)}`],
    ['a quantity nested 100 objects deep', `${'{"quantity":'.repeat(100)}1${'}'.repeat(100)}`],
  ])('%s', async (_case, body) => {
    expect(body.length).toBeLessThan(16 * 1024);
    const response = await fx.call('/v1/inventory/1', { method: 'PATCH', headers: jsonWith(key), body });
    expect(response.status).toBe(400);
    const error = JSON.parse(response.text) as { code: string; message: string };
    expect(error.code).toBe('invalid_body');
    expect(error.message).toMatch(
      /^the body is not valid JSON: Nested deeper than 64 levels at byte \d+ \(.{1,120}\)$/,
    );
  });
});
