import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type HttpFixture, startHttpFixture } from './support/http-fixture.js';

const guessFor = (i: number): string => `Bearer psk_${String(i).padStart(40, 'G')}`;

/** For each bearer, whether the service let it in (200), as a guesser reads the answers. */
async function oracle(fx: HttpFixture, address: string, bearers: readonly string[]): Promise<boolean[]> {
  const answers: boolean[] = [];
  for (const authorization of bearers) {
    const response = await fx.call('/v1/inventory', { headers: { authorization, 'x-forwarded-for': address } });
    answers.push(response.status === 200);
  }
  return answers;
}

describe('key guessing and the address limit', () => {
  let fx: HttpFixture;
  beforeEach(async () => {
    fx = await startHttpFixture({ trustProxy: true });
  });
  afterEach(async () => {
    await fx.close();
  });

  it('tells a guesser exactly as much from a banned address as from a fresh one: the limit never hides a valid key', async () => {
    const valid = await fx.bearer('free');
    const guesses = [...Array.from({ length: 30 }, (_, i) => guessFor(i)), valid, guessFor(99)];
    // 100 refused guesses ban the first address; the second has sent nothing.
    for (let i = 0; i < 100; i += 1) await fx.call('/v1/inventory', { headers: { 'x-forwarded-for': '192.0.2.1' } });
    const banned = await oracle(fx, '192.0.2.1', guesses);
    const fresh = await oracle(fx, '192.0.2.2', guesses);
    expect(banned).toEqual(fresh);
    expect(banned.filter(Boolean)).toHaveLength(1);
  });

  it('is described in the README as it is: the key space defeats guessing, the address limit does not slow it', () => {
    const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
    const section = readme.split(/^## What the service protects against$/m)[1]?.split(/^## /m)[0] ?? '';
    expect(section).toMatch(/238 bits/);
    expect(section).toMatch(/does not slow key guessing/);
    expect(section).toMatch(/never blocks a request that carries a valid key/);
    expect(readme).not.toMatch(/guessing is slowed|slows key guessing/i);
  });
});
