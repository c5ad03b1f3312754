import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPetstoreClient, type PetstoreClient } from '../../src/client/index.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { anOrder, aPet, INT64_MAX, INT64_MIN } from '../../src/testing/index.js';
import { type HttpFixture, startHttpFixture } from '../http/support/http-fixture.js';

describe('the typed client', () => {
  let fixture: HttpFixture;
  let client: PetstoreClient;
  let anonymous: PetstoreClient;
  beforeAll(async () => {
    fixture = await startHttpFixture();
    await fixture.addPets(
      aPet(1, { quantity: quantity(3) }),
      aPet(9007199254740993n, { quantity: quantity(2) }),
      aPet(INT64_MAX, { quantity: quantity(1) }),
      aPet(INT64_MIN, { quantity: quantity(4) }),
    );
    await fixture.addOrders(anOrder(9007199254740995n, petId(INT64_MAX)));
    const bearer = await fixture.bearer('enterprise', { perMinute: 100_000, perDay: 1_000_000 });
    client = createPetstoreClient({ baseUrl: `${fixture.origin}/v1`, apiKey: bearer.slice('Bearer '.length) });
    anonymous = createPetstoreClient({ baseUrl: `${fixture.origin}/v1` });
  });
  afterAll(() => fixture.close());

  it('lists the inventory with every petId as an exact bigint', async () => {
    const answer = await client.get('/inventory');
    expect(answer.ok && answer.data).toEqual([
      { petId: INT64_MIN, quantity: 4, reserved: 0, available: 4, status: 'available' },
      { petId: 1n, quantity: 3, reserved: 0, available: 3, status: 'available' },
      { petId: 9007199254740993n, quantity: 2, reserved: 0, available: 2, status: 'available' },
      { petId: INT64_MAX, quantity: 1, reserved: 0, available: 1, status: 'available' },
    ]);
  });

  it('sends a bigint query value as its exact digits', async () => {
    const answer = await client.get('/inventory', { params: { query: { after: 9007199254740993n, limit: 5 } } });
    expect(answer.ok && answer.data).toEqual([
      { petId: INT64_MAX, name: `pet ${INT64_MAX}`, quantity: 1, reserved: 0, available: 1, status: 'available' },
    ]);
  });

  it('sends the list filters, a status list as one comma-separated value', async () => {
    const answer = await client.get('/inventory', {
      params: { query: { status: ['available', 'pending'], maxAvailable: 2, limit: 10 } },
    });
    expect(answer.ok && answer.data).toEqual([
      {
        petId: 9007199254740993n,
        name: 'pet 9007199254740993',
        quantity: 2,
        reserved: 0,
        available: 2,
        status: 'available',
      },
      { petId: INT64_MAX, name: `pet ${INT64_MAX}`, quantity: 1, reserved: 0, available: 1, status: 'available' },
    ]);
  });

  it('searches by part of a name, and starts the change feed at its head', async () => {
    const found = await client.get('/inventory', { params: { query: { q: '7199254', limit: 10 } } });
    expect(found.ok && found.data?.map((entry) => entry.petId)).toEqual([9007199254740993n]);
    const head = await client.get('/inventory/changes', { params: { query: { after: 'latest' } } });
    expect(head.ok && head.data).toEqual([]);
    expect(head.headers.get('link')).toMatch(/after=0\.[0-9]+&limit=100>; rel="next"$/);
  });

  it('posts a body, as an adjustment takes one', async () => {
    const answer = await client.post('/inventory/{petId}/adjustments', {
      params: { path: { petId: INT64_MIN } },
      body: { delta: -1, reason: 'counted again' },
    });
    expect(answer.ok && answer.data).toEqual({
      petId: INT64_MIN,
      quantity: 3,
      reserved: 0,
      available: 3,
      status: 'available',
    });
    const back = await client.post('/inventory/{petId}/adjustments', {
      params: { path: { petId: INT64_MIN } },
      body: { delta: 1 },
    });
    expect(back.ok).toBe(true);
  });

  it('sends a bigint path parameter and body, and reads the answer exactly', async () => {
    const answer = await client.patch('/inventory/{petId}', {
      params: { path: { petId: 9007199254740993n } },
      body: { quantity: 0 },
    });
    expect(answer).toMatchObject({ ok: true, status: 200 });
    expect(answer.ok && answer.data).toEqual({
      petId: 9007199254740993n,
      quantity: 0,
      reserved: 0,
      available: 0,
      status: 'sold',
    });
    expect(answer.headers.get('x-ratelimit-limit')).toBe('100000');
  });

  it('reads nested int64 ids exactly: orders and pets', async () => {
    const orders = await client.get('/store/orders');
    expect(orders.ok && orders.data[0]).toMatchObject({ id: 9007199254740995n, petId: INT64_MAX, quantity: 1 });
    const pet = await client.get('/pets/{petId}', { params: { path: { petId: INT64_MAX } } });
    expect(pet.ok && pet.data).toMatchObject({ id: INT64_MAX, photoUrls: [], tags: [] });
  });

  it('resolves an answered failure with the Error body, its status and headers', async () => {
    const missing = await client.patch('/inventory/{petId}', {
      params: { path: { petId: 404n } },
      body: { quantity: 1 },
    });
    expect(missing).toMatchObject({ ok: false, status: 404, error: { code: 'pet_not_found', status: 404 } });
    const refused = await anonymous.get('/inventory');
    expect(refused).toMatchObject({ ok: false, status: 401, error: { code: 'unauthorized' } });
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="petstore"');
  });

  it('reads the OpenAPI document without a key', async () => {
    const answer = await anonymous.get('/openapi.json');
    expect(answer.ok && answer.data).toMatchObject({ openapi: '3.1.0', info: { version: '1.0.0' } });
  });

  it('is typed by the document: what it demands must be given, with int64 values as bigints', () => {
    // Never called: `npm run typecheck` proves that each line below is refused.
    const refused = (c: PetstoreClient) => [
      // @ts-expect-error the path parameter petId is required
      c.patch('/inventory/{petId}', { body: { quantity: 1 } }),
      // @ts-expect-error a petId is an int64: a bigint, never a number that could round
      c.patch('/inventory/{petId}', { params: { path: { petId: 1 } }, body: { quantity: 1 } }),
      // @ts-expect-error the body is required
      c.patch('/inventory/{petId}', { params: { path: { petId: 1n } } }),
      // @ts-expect-error no such path
      c.get('/inventories'),
    ];
    expect(typeof refused).toBe('function');
  });

  it('rejects only when the service cannot be reached', async () => {
    const nowhere = createPetstoreClient({ baseUrl: 'http://127.0.0.1:1/v1' });
    await expect(nowhere.get('/inventory')).rejects.toThrow();
  });
});
