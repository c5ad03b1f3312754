import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { aPet, INT64_MAX } from '../../src/testing/index.js';
import { type ApiResponse, type HttpFixture, jsonWith, startHttpFixture } from './support/http-fixture.js';

const ENTERPRISE = { perMinute: 100_000, perDay: 1_000_000 };

interface ChangeJson {
  id: number | bigint;
  quantityAfter: number;
}

/** The target of `Link: <...>; rel="next"`, or undefined without one. */
const nextOf = (response: ApiResponse): string | undefined =>
  /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];

describe('GET /v1/inventory/{petId}/changes (listStockChanges)', () => {
  let fx: HttpFixture;
  let key: string;
  beforeEach(async () => {
    fx = await startHttpFixture();
    key = await fx.bearer('enterprise', ENTERPRISE);
    await fx.addPets(aPet(1, { quantity: quantity(5) }), aPet(2), aPet(INT64_MAX, { status: 'pending' }));
  });
  afterEach(async () => {
    await fx.close();
  });

  const get = (path: string) => fx.call(path, { headers: { authorization: key } });
  const setStock = async (id: bigint | number, ...quantities: number[]) => {
    for (const q of quantities) {
      const response = await fx.call(`/v1/inventory/${id}`, {
        method: 'PATCH',
        headers: jsonWith(key),
        body: `{"quantity":${q}}`,
      });
      expect(response.status).toBe(200);
    }
  };
  const afterQuantities = (response: ApiResponse): number[] =>
    (JSON.parse(response.text) as ChangeJson[]).map((change) => change.quantityAfter);

  it('answers each change with who, when, before and after, newest first', async () => {
    fx.clock.ms = Date.UTC(2026, 2, 1, 12, 30, 15, 7);
    await setStock(1, 0);
    fx.clock.advance(1_000);
    await setStock(1, 4);
    const [record] = await fx.core.listApiKeys.execute();
    const [second, first] = (await fx.changes.history(petId(1n), { limit: 10 })) ?? [];
    const response = await get('/v1/inventory/1/changes');
    expect(response.status).toBe(200);
    expect(response.text).toBe(
      `[{"id":${second?.id},"petId":1,"kind":"set","quantityBefore":0,"quantityAfter":4,"statusBefore":"sold",` +
        `"statusAfter":"available","keyId":"${record?.id}","keyName":${JSON.stringify(record?.name ?? null)},"at":"2026-03-01T12:30:16.007Z","reason":null},` +
        `{"id":${first?.id},"petId":1,"kind":"set","quantityBefore":5,"quantityAfter":0,"statusBefore":"available",` +
        `"statusAfter":"sold","keyId":"${record?.id}","keyName":${JSON.stringify(record?.name ?? null)},"at":"2026-03-01T12:30:15.007Z","reason":null}]`,
    );
    expect(response.headers.get('link')).toBeNull();
  });

  it('writes int64 pet ids exactly', async () => {
    await setStock(INT64_MAX, 1);
    const response = await get(`/v1/inventory/${INT64_MAX}/changes`);
    expect(response.text).toContain(`"petId":${INT64_MAX},`);
    expect((response.exact() as { petId: bigint }[])[0]?.petId).toBe(INT64_MAX);
  });

  it('shows only the pet’s own changes', async () => {
    await setStock(1, 7);
    await setStock(2, 8);
    expect(afterQuantities(await get('/v1/inventory/2/changes'))).toEqual([8]);
  });

  it('answers [] for a pet without changes, 404 for an unknown pet', async () => {
    expect((await get('/v1/inventory/2/changes')).text).toBe('[]');
    const missing = await get('/v1/inventory/3/changes');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text)).toMatchObject({ code: 'pet_not_found' });
  });

  it('answers 100 changes unless asked for another limit', async () => {
    await setStock(1, ...Array.from({ length: 105 }, (_, i) => i));
    const page = await get('/v1/inventory/1/changes');
    expect(afterQuantities(page)).toHaveLength(100);
    expect(afterQuantities(page)[0]).toBe(104);
    expect(nextOf(page)).toMatch(/^\/v1\/inventory\/1\/changes\?before=[0-9]+&limit=100$/);
  });

  it('pages with limit and before, and links each page to the next until the oldest', async () => {
    await setStock(1, 10, 11, 12, 13, 14);
    const seen: number[] = [];
    let path: string | undefined = '/v1/inventory/1/changes?limit=2';
    const links: string[] = [];
    while (path !== undefined) {
      const page = await get(path);
      expect(page.status).toBe(200);
      seen.push(...afterQuantities(page));
      path = nextOf(page);
      if (path !== undefined) links.push(path);
    }
    expect(seen).toEqual([14, 13, 12, 11, 10]);
    expect(links).toHaveLength(2);
  });

  it('sends no next link when the page ends exactly at the oldest change', async () => {
    await setStock(1, 10, 11);
    const page = await get('/v1/inventory/1/changes?limit=2');
    expect(afterQuantities(page)).toEqual([11, 10]);
    expect(page.headers.get('link')).toBeNull();
  });

  it('takes before as the id of the last change seen', async () => {
    await setStock(1, 10, 11, 12);
    const [, middle] = (await fx.changes.history(petId(1n), { limit: 10 })) ?? [];
    expect(afterQuantities(await get(`/v1/inventory/1/changes?before=${middle?.id}`))).toEqual([10]);
    expect(afterQuantities(await get('/v1/inventory/1/changes?before=9223372036854775807&limit=1000'))).toEqual([
      12, 11, 10,
    ]);
  });

  it.each([
    ['limit=0', /limit must be an integer from 1 to 1000/],
    ['limit=1001', /limit must be/],
    ['limit=abc', /limit must be/],
    ['limit=', /limit must be/],
    ['limit=1&limit=2', /limit must be/],
    ['before=0', /before must be a change id/],
    ['before=-1', /before must be/],
    ['before=abc', /before must be/],
    ['before=9223372036854775808', /before must be/],
    ['before=1&before=2', /before must be/],
  ])('refuses ?%s with 400 invalid_query', async (query, message) => {
    const response = await get(`/v1/inventory/1/changes?${query}`);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text)).toMatchObject({ code: 'invalid_query' });
    expect((JSON.parse(response.text) as { message: string }).message).toMatch(message);
  });

  it('refuses a bad petId with 400 invalid_pet_id', async () => {
    const response = await get('/v1/inventory/abc/changes');
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text)).toMatchObject({ code: 'invalid_pet_id' });
  });
});

describe('GET /v1/inventory?limit= links to the next page', () => {
  let fx: HttpFixture;
  let key: string;
  beforeEach(async () => {
    fx = await startHttpFixture();
    key = await fx.bearer('enterprise', ENTERPRISE);
    await fx.addPets(...[1, 2, 3, 4, 5].map((id) => aPet(id)));
  });
  afterEach(async () => {
    await fx.close();
  });

  const get = (path: string) => fx.call(path, { headers: { authorization: key } });
  const ids = (response: ApiResponse): number[] =>
    (JSON.parse(response.text) as { petId: number }[]).map((item) => item.petId);

  it('names after= the last petId of a full page, and follows to the end', async () => {
    const first = await get('/v1/inventory?limit=2');
    expect(ids(first)).toEqual([1, 2]);
    expect(first.headers.get('link')).toBe('</v1/inventory?after=2&limit=2>; rel="next"');
    const second = await get(nextOf(first) as string);
    expect(ids(second)).toEqual([3, 4]);
    const third = await get(nextOf(second) as string);
    expect(ids(third)).toEqual([5]);
    expect(third.headers.get('link')).toBeNull();
  });

  it('sends no link when the page holds the rest of the list exactly, or when no limit was asked', async () => {
    expect((await get('/v1/inventory?limit=5')).headers.get('link')).toBeNull();
    expect((await get('/v1/inventory?after=3&limit=2')).headers.get('link')).toBeNull();
    expect((await get('/v1/inventory?after=1')).headers.get('link')).toBeNull();
  });

  it('links a page longer than one store chunk', async () => {
    await fx.addPets(...Array.from({ length: 2_500 }, (_, i) => aPet(i + 10)));
    const page = await get('/v1/inventory?limit=2000');
    expect(ids(page)).toHaveLength(2_000);
    expect(nextOf(page)).toBe(`/v1/inventory?after=${ids(page)[1_999]}&limit=2000`);
  });
});
