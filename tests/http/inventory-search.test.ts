import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { quantity } from '../../src/domain/quantity.js';
import { aPet, INT64_MAX } from '../../src/testing/index.js';
import { type HttpFixture, startHttpFixture } from './support/http-fixture.js';

const ENTERPRISE = { perMinute: 100_000, perDay: 1_000_000 };

interface NamedJson {
  petId: number | bigint;
  name: string;
  category?: { id: number; name: string };
}

const named = (text: string): NamedJson[] => JSON.parse(text) as NamedJson[];
const ids = (text: string): (number | bigint)[] => named(text).map((item) => item.petId);

describe('names, search and CSV of GET /v1/inventory', () => {
  let fx: HttpFixture;
  let key: string;
  beforeEach(async () => {
    fx = await startHttpFixture();
    key = await fx.bearer('enterprise', ENTERPRISE);
    await fx.addPets(
      aPet(1, { name: 'Maple', category: { id: 7n, name: 'Dogs' } }),
      aPet(2, { name: 'Oscar', quantity: quantity(1), status: 'pending' }),
      aPet(3, { name: 'maplewood', quantity: quantity(0) }),
      aPet(4, { name: 'Sugar MAPLE', quantity: quantity(2) }),
      aPet(INT64_MAX, { name: '=cmd, "big"', category: { id: 8n, name: '+Cats' } }),
    );
  });
  afterEach(async () => {
    await fx.close();
  });

  const get = (path: string) => fx.call(path, { headers: { authorization: key } });

  it('gives each entry of a page its pet’s name, and its category when it has one', async () => {
    const page = named((await get('/v1/inventory?limit=2')).text);
    expect(page).toEqual([
      {
        petId: 1,
        name: 'Maple',
        category: { id: 7, name: 'Dogs' },
        quantity: 5,
        reserved: 0,
        available: 5,
        status: 'available',
      },
      { petId: 2, name: 'Oscar', quantity: 1, reserved: 0, available: 1, status: 'pending' },
    ]);
  });

  it('finds pets by part of their name, letter case aside, page by page, and the next link carries q', async () => {
    const first = await get('/v1/inventory?q=mAPle&limit=2');
    expect(ids(first.text)).toEqual([1, 3]);
    expect(first.headers.get('link')).toBe('</v1/inventory?q=mAPle&after=3&limit=2>; rel="next"');
    expect(ids((await get('/v1/inventory?q=mAPle&after=3&limit=2')).text)).toEqual([4]);
    expect(ids((await get('/v1/inventory?q=ap')).text)).toEqual([1, 3, 4]);
    expect(ids((await get('/v1/inventory?q=zebra')).text)).toEqual([]);
  });

  it('combines the search with status and maxAvailable', async () => {
    expect(ids((await get('/v1/inventory?q=maple&maxAvailable=2')).text)).toEqual([3, 4]);
    expect(ids((await get('/v1/inventory?q=a&status=pending')).text)).toEqual([2]);
  });

  it('takes the text literally: % and _ match only themselves', async () => {
    expect(ids((await get('/v1/inventory?q=%25')).text)).toEqual([]);
    expect(ids((await get('/v1/inventory?q=_')).text)).toEqual([]);
  });

  it('refuses an empty q, or one longer than any name, with 400 invalid_query', async () => {
    for (const q of ['', 'x'.repeat(201)]) {
      const response = await get(`/v1/inventory?q=${q}`);
      expect(response.status, q).toBe(400);
      expect(JSON.parse(response.text)).toMatchObject({ code: 'invalid_query', message: expect.stringMatching(/^q /) });
    }
  });

  it('exports the whole filtered list as CSV: a header, then one line a pet, formulas kept as text', async () => {
    const response = await fx.call('/v1/inventory.csv', { headers: { authorization: key } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="inventory.csv"');
    expect(response.text).toBe(
      'petId,name,category,quantity,reserved,available,status\r\n' +
        '1,Maple,Dogs,5,0,5,available\r\n' +
        '2,Oscar,,1,0,1,pending\r\n' +
        '3,maplewood,,0,0,0,available\r\n' +
        '4,Sugar MAPLE,,2,0,2,available\r\n' +
        `${INT64_MAX},"'=cmd, ""big""",'+Cats,5,0,5,available\r\n`,
    );
    const low = await fx.call('/v1/inventory.csv?q=maple&maxAvailable=0', { headers: { authorization: key } });
    expect(low.text).toBe('petId,name,category,quantity,reserved,available,status\r\n3,maplewood,,0,0,0,available\r\n');
  });

  it('exports every page of a list longer than one read of the store', async () => {
    await fx.addPets(...Array.from({ length: 2_500 }, (_, i) => aPet(100 + i, { name: `bulk ${i}` })));
    const response = await fx.call('/v1/inventory.csv?q=bulk', { headers: { authorization: key } });
    const lines = response.text.trimEnd().split('\r\n');
    expect(lines).toHaveLength(2_501);
    expect(lines[2_500]).toBe('2599,bulk 2499,,5,0,5,available');
  });
});
