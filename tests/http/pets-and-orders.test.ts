import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { petId } from '../../src/domain/pet-id.js';
import { anOrder, aPet, INT64_MAX } from '../../src/testing/index.js';
import { type ApiResponse, type HttpFixture, startHttpFixture, TEST_SUNSET_AT } from './support/http-fixture.js';
import { TEST_SERVERS } from './support/openapi-contract.js';

const DEPRECATED_AT = new Date('2025-10-01T00:00:00Z');
const INFO = `${TEST_SERVERS.production}/openapi.json`;

const expectDeprecationHeaders = (response: ApiResponse): void => {
  expect(response.headers.get('deprecation')).toBe(`@${DEPRECATED_AT.getTime() / 1000}`);
  expect(response.headers.get('sunset')).toBe('Wed, 01 Jul 2026 00:00:00 GMT');
  expect(response.headers.get('link')).toBe(
    `<${INFO}>; rel="deprecation"; type="application/json", <${INFO}>; rel="sunset"; type="application/json"`,
  );
};

describe('GET /v1/pets/{petId} (getPetById, deprecated)', () => {
  let fx: HttpFixture;
  let key: string;
  beforeEach(async () => {
    fx = await startHttpFixture({ deprecatedAt: DEPRECATED_AT });
    key = await fx.bearer('business');
    await fx.addPets(
      aPet(INT64_MAX, {
        name: 'Rex "the" dog',
        status: 'pending',
        category: { id: 2n ** 60n, name: 'Dogs' },
        photoUrls: ['https://img.example/rex.jpg'],
        tags: [{ id: 9n, name: 'friendly' }],
      }),
      aPet(1),
    );
  });
  afterEach(async () => {
    await fx.close();
  });

  const get = (id: string) => fx.call(`/v1/pets/${id}`, { headers: { authorization: key } });

  it('answers the Pet, ids exact, with the Deprecation, Sunset and Link headers', async () => {
    const response = await get(String(INT64_MAX));
    expect(response.status).toBe(200);
    expect(response.exact()).toEqual({
      id: INT64_MAX,
      name: 'Rex "the" dog',
      category: { id: 2n ** 60n, name: 'Dogs' },
      photoUrls: ['https://img.example/rex.jpg'],
      tags: [{ id: 9, name: 'friendly' }],
      status: 'pending',
    });
    expectDeprecationHeaders(response);
  });

  it('leaves category out for a pet without one', async () => {
    const response = await get('1');
    expect(response.text).toBe('{"id":1,"name":"pet 1","photoUrls":[],"tags":[],"status":"available"}');
  });

  it('answers 404 pet_not_found and 400 invalid_pet_id, still with the deprecation headers', async () => {
    const missing = await get('2');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text)).toMatchObject({ code: 'pet_not_found' });
    expectDeprecationHeaders(missing);
    const invalid = await get('1e3');
    expect(invalid.status).toBe(400);
    expect(JSON.parse(invalid.text)).toMatchObject({ code: 'invalid_pet_id' });
    expectDeprecationHeaders(invalid);
  });

  it('answers until the sunset, and 410 gone from the sunset on', async () => {
    fx.clock.ms = TEST_SUNSET_AT.getTime() - 1;
    expect((await get('1')).status).toBe(200);
    fx.clock.advance(1);
    const gone = await get('1');
    expect(gone.status).toBe(410);
    expect(JSON.parse(gone.text)).toEqual({
      code: 'gone',
      message: 'getPetById was retired on Wed, 01 Jul 2026 00:00:00 GMT',
      status: 410,
    });
    expectDeprecationHeaders(gone);
  });

  it('takes the deprecation date from the options, and 2026-01-01 without one', async () => {
    const other = await startHttpFixture();
    try {
      const response = await other.call('/v1/pets/1', { headers: { authorization: await other.bearer('free') } });
      expect(response.headers.get('deprecation')).toBe(`@${Date.UTC(2026, 0, 1) / 1000}`);
    } finally {
      await other.close();
    }
  });
});

describe('GET /v1/store/orders (listOrders)', () => {
  let fx: HttpFixture;
  let key: string;
  beforeEach(async () => {
    fx = await startHttpFixture();
    key = await fx.bearer('free');
  });
  afterEach(async () => {
    await fx.close();
  });

  it('answers an empty array when there are no orders', async () => {
    const response = await fx.call('/v1/store/orders', { headers: { authorization: key } });
    expect(response.status).toBe(200);
    expect(response.text).toBe('[]');
  });

  it('answers every Order ordered by id, ids exact', async () => {
    await fx.addPets(aPet(INT64_MAX), aPet(3));
    await fx.addOrders(
      anOrder(INT64_MAX, petId(INT64_MAX), { quantity: 2, status: 'delivered', complete: true }),
      anOrder(1, petId(3n)),
    );
    const response = await fx.call('/v1/store/orders', { headers: { authorization: key } });
    expect(response.text).toBe(
      '[{"id":1,"petId":3,"quantity":1,"shipDate":"2026-03-01T12:00:00.000Z","status":"placed","complete":false},' +
        `{"id":${INT64_MAX},"petId":${INT64_MAX},"quantity":2,"shipDate":"2026-03-01T12:00:00.000Z",` +
        '"status":"delivered","complete":true}]',
    );
  });
});
