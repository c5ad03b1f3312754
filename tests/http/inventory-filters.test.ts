import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { quantity } from '../../src/domain/quantity.js';
import { aPet } from '../../src/testing/index.js';
import { type HttpFixture, startHttpFixture } from './support/http-fixture.js';

const ENTERPRISE = { perMinute: 100_000, perDay: 1_000_000 };

const ids = (text: string): number[] => (JSON.parse(text) as { petId: number }[]).map((item) => item.petId);

describe('GET /v1/inventory?status=&maxAvailable= (list filters)', () => {
  let fx: HttpFixture;
  let key: string;
  beforeEach(async () => {
    fx = await startHttpFixture();
    key = await fx.bearer('enterprise', ENTERPRISE);
    await fx.addPets(
      aPet(1, { quantity: quantity(0) }),
      aPet(2, { quantity: quantity(3), status: 'pending' }),
      aPet(3, { quantity: quantity(9), status: 'sold' }),
      aPet(4, { quantity: quantity(2) }),
      aPet(5, { quantity: quantity(50), status: 'pending' }),
      aPet(6, { quantity: quantity(1), status: 'sold' }),
    );
  });
  afterEach(async () => {
    await fx.close();
  });

  const list = (query: string, headers: Record<string, string> = {}) =>
    fx.call(`/v1/inventory${query}`, { headers: { authorization: key, ...headers } });

  it('narrows the list to the statuses named, one or several, in id order', async () => {
    expect(ids((await list('?status=sold')).text)).toEqual([3, 6]);
    expect(ids((await list('?status=available,pending')).text)).toEqual([1, 2, 4, 5]);
    expect(ids((await list('?status=sold,sold')).text)).toEqual([3, 6]);
  });

  it('narrows the list to the entries whose available is at or below maxAvailable', async () => {
    expect(ids((await list('?maxAvailable=2')).text)).toEqual([1, 4, 6]);
    expect(ids((await list('?maxAvailable=0')).text)).toEqual([1]);
    expect(ids((await list('?maxAvailable=2147483647')).text)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('combines both filters with keyset paging, and the next link carries the filters', async () => {
    const first = await list('?status=available,pending&maxAvailable=5&limit=2');
    expect(ids(first.text)).toEqual([1, 2]);
    expect(first.headers.get('link')).toBe(
      '</v1/inventory?status=available,pending&maxAvailable=5&after=2&limit=2>; rel="next"',
    );
    const second = await list('?status=available,pending&maxAvailable=5&after=2&limit=2');
    expect(ids(second.text)).toEqual([4]);
    expect(second.headers.get('link')).toBeNull();
  });

  it('tags a whole filtered list apart from the whole list and from other filters, and answers 304 while unchanged', async () => {
    const whole = await list('');
    const sold = await list('?status=sold');
    const low = await list('?maxAvailable=2');
    const tags = [whole, sold, low].map((response) => response.headers.get('etag'));
    expect(tags.every((tag) => tag?.startsWith('W/"'))).toBe(true);
    expect(new Set(tags).size).toBe(3);
    const again = await list('?status=sold', { 'if-none-match': sold.headers.get('etag') as string });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    // A stock write changes the store's stamp, so every tag of it.
    const write = await fx.call('/v1/inventory/6', {
      method: 'PATCH',
      headers: { authorization: key, 'content-type': 'application/json' },
      body: '{"quantity":7}',
    });
    expect(write.status).toBe(200);
    const changed = await list('?status=sold', { 'if-none-match': sold.headers.get('etag') as string });
    expect(changed.status).toBe(200);
    // Stocking a sold pet makes it available again: it leaves the list of the sold.
    expect(ids(changed.text)).toEqual([3]);
  });

  it('sends no ETag on a filtered page, as on any page', async () => {
    expect((await list('?status=sold&limit=1')).headers.get('etag')).toBeNull();
  });

  it.each([
    ['status=', /status must be one or more of available, pending, sold/],
    ['status=lost', /status must be/],
    ['status=available,', /status must be/],
    ['status=Available', /status must be/],
    ['status=sold&status=pending', /status must be/],
    ['maxAvailable=-1', /maxAvailable must be an integer from 0 to 2147483647/],
    ['maxAvailable=2147483648', /maxAvailable must be/],
    ['maxAvailable=01', /maxAvailable must be/],
    ['maxAvailable=1.5', /maxAvailable must be/],
    ['maxAvailable=', /maxAvailable must be/],
  ])('refuses ?%s with 400 invalid_query', async (query, message) => {
    const response = await list(`?${query}`);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text)).toMatchObject({ code: 'invalid_query', message: expect.stringMatching(message) });
  });
});
