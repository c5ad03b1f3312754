import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { quantity } from '../../src/domain/quantity.js';
import { aPet, INT64_MAX } from '../../src/testing/index.js';
import { type ApiResponse, type HttpFixture, jsonWith, startHttpFixture } from './support/http-fixture.js';

const ENTERPRISE = { perMinute: 100_000, perDay: 1_000_000 };

interface FeedJson {
  petId: number | bigint;
  kind: string;
  quantityAfter: number;
  cursor: string;
}

const nextOf = (response: ApiResponse): string | undefined =>
  /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];

describe('GET /v1/inventory/changes (listAllStockChanges)', () => {
  let fx: HttpFixture;
  let key: string;
  beforeEach(async () => {
    fx = await startHttpFixture();
    key = await fx.bearer('enterprise', ENTERPRISE);
    await fx.addPets(aPet(1, { quantity: quantity(5) }), aPet(INT64_MAX, { status: 'pending' }));
  });
  afterEach(async () => {
    await fx.close();
  });

  const get = (path: string) => fx.call(path, { headers: { authorization: key } });
  const write = async (path: string, method: string, body: string) => {
    const response = await fx.call(path, { method, headers: jsonWith(key), body });
    expect(response.status).toBe(200);
  };

  it('lists the changes of every pet oldest first, each with the history fields and its cursor', async () => {
    fx.clock.ms = Date.UTC(2026, 2, 1, 12, 0, 0);
    await write('/v1/inventory/1', 'PATCH', '{"quantity":0,"reason":"sold out"}');
    await write(`/v1/inventory/${INT64_MAX}/adjustments`, 'POST', '{"delta":3}');
    const response = await get('/v1/inventory/changes');
    expect(response.status).toBe(200);
    const [first, second] = JSON.parse(response.text) as FeedJson[];
    expect(response.text).toContain(
      `"petId":1,"kind":"set","quantityBefore":5,"quantityAfter":0,"statusBefore":"available","statusAfter":"sold",`,
    );
    expect(response.text).toContain(`"petId":${INT64_MAX},"kind":"adjust"`);
    expect(response.text).toContain('"at":"2026-03-01T12:00:00.000Z","reason":"sold out","cursor":"');
    expect([first?.kind, second?.kind]).toEqual(['set', 'adjust']);
    expect(nextOf(response)).toBe(`/v1/inventory/changes?after=${second?.cursor}&limit=100`);
  });

  it('pages by cursor: a reader that follows the next link sees every change once, and later ones as they come', async () => {
    for (let q = 1; q <= 5; q += 1) await write('/v1/inventory/1', 'PATCH', `{"quantity":${q}}`);
    const seen: number[] = [];
    let path = '/v1/inventory/changes?limit=2';
    for (let round = 0; round < 4; round += 1) {
      const response = await get(path);
      expect(response.status).toBe(200);
      seen.push(...(JSON.parse(response.text) as FeedJson[]).map((change) => change.quantityAfter));
      path = nextOf(response) as string;
    }
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    // At the end, the link stays where the reader is, until a change comes.
    expect((await get(path)).text).toBe('[]');
    await write('/v1/inventory/1', 'PATCH', '{"quantity":9}');
    const later = await get(path);
    expect((JSON.parse(later.text) as FeedJson[]).map((change) => change.quantityAfter)).toEqual([9]);
  });

  it('starts at the head with after=latest: no history, and a link that reads the changes made from then on', async () => {
    for (let q = 1; q <= 3; q += 1) await write('/v1/inventory/1', 'PATCH', `{"quantity":${q}}`);
    const head = await get('/v1/inventory/changes?after=latest&limit=1000');
    expect(head.status).toBe(200);
    expect(head.text).toBe('[]');
    const path = nextOf(head) as string;
    expect(path).toMatch(/^\/v1\/inventory\/changes\?after=0\.3&limit=1000$/);
    await write('/v1/inventory/1', 'PATCH', '{"quantity":9}');
    expect((JSON.parse((await get(path)).text) as FeedJson[]).map((change) => change.quantityAfter)).toEqual([9]);
  });

  it('starts an empty feed at its beginning with after=latest, so that its first change is read', async () => {
    const path = nextOf(await get('/v1/inventory/changes?after=latest')) as string;
    await write('/v1/inventory/1', 'PATCH', '{"quantity":2}');
    expect((JSON.parse((await get(path)).text) as FeedJson[]).map((change) => change.quantityAfter)).toEqual([2]);
  });

  it('names the key that made each change, as the key is named now', async () => {
    const { key: shopFloor } = await fx.core.issueApiKey.execute({
      plan: 'enterprise',
      limits: ENTERPRISE,
      name: 'shop floor',
    });
    const named = `Bearer ${shopFloor}`;
    const response = await fx.call('/v1/inventory/1', {
      method: 'PATCH',
      headers: jsonWith(named),
      body: '{"quantity":4}',
    });
    expect(response.status).toBe(200);
    await write('/v1/inventory/1', 'PATCH', '{"quantity":3}');
    const changes = JSON.parse((await get('/v1/inventory/changes')).text) as { keyName: string | null }[];
    expect(changes.map((change) => change.keyName)).toEqual(['shop floor', null]);
  });

  it('refuses a cursor it did not give and a limit outside 1..1000 with 400 invalid_query', async () => {
    for (const query of [
      'after=abc',
      'after=1',
      'after=01.2',
      'after=1.99999999999999999999',
      'limit=0',
      'limit=1001',
    ]) {
      const response = await get(`/v1/inventory/changes?${query}`);
      expect(response.status, query).toBe(400);
      expect(JSON.parse(response.text)).toMatchObject({ code: 'invalid_query' });
    }
  });

  it('refuses a well-formed cursor it never gave (another txn, a change it does not hold) with 400 invalid_query', async () => {
    await write('/v1/inventory/1', 'PATCH', '{"quantity":1}');
    await write('/v1/inventory/1', 'PATCH', '{"quantity":2}');
    const [first] = JSON.parse((await get('/v1/inventory/changes')).text) as FeedJson[];
    expect((await get(`/v1/inventory/changes?after=${first?.cursor}`)).status).toBe(200);
    expect((await get('/v1/inventory/changes?after=0.0')).status).toBe(200);
    for (const cursor of ['1.0', '99.1', '0.99', '0.9223372036854775807', '9223372036854775807.1', '1.1']) {
      const response = await get(`/v1/inventory/changes?after=${cursor}`);
      expect(response.status, cursor).toBe(400);
      expect(JSON.parse(response.text), cursor).toEqual({
        code: 'invalid_query',
        message: 'after must be a cursor of this feed, as a change listed it, or latest',
        status: 400,
      });
      expect(response.headers.get('link'), cursor).toBeNull();
    }
  });
});
