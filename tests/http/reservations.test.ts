import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { quantity } from '../../src/domain/quantity.js';
import { aPet } from '../../src/testing/index.js';
import { type ApiResponse, type HttpFixture, jsonWith, startHttpFixture } from './support/http-fixture.js';

const bodyOf = (response: ApiResponse) => JSON.parse(response.text);

describe('reservations over HTTP (reserveInventory, getReservation, commitReservation, releaseReservation)', () => {
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

  const reserve = (body: string, headers: Record<string, string> = {}, as = key) =>
    fx.call('/v1/inventory/1/reservations', { method: 'POST', headers: { ...jsonWith(as), ...headers }, body });
  const commit = (id: string, as = key) =>
    fx.call(`/v1/reservations/${id}/commit`, { method: 'POST', headers: { authorization: as } });
  const release = (id: string, as = key) =>
    fx.call(`/v1/reservations/${id}`, { method: 'DELETE', headers: { authorization: as } });
  const read = (path: string, as = key) => fx.call(path, { headers: { authorization: as } });

  it('answers 201 with the held reservation and its Location; the item shows it reserved, with a new ETag', async () => {
    const response = await reserve('{"quantity":2,"ttlSeconds":60}');
    expect(response.status).toBe(201);
    const reservation = bodyOf(response);
    const now = fx.clock.nowMs();
    expect(reservation).toEqual({
      id: expect.stringMatching(/^res_[0-9a-f]{32}$/),
      petId: 1,
      quantity: 2,
      state: 'held',
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + 60_000).toISOString(),
    });
    expect(response.headers.get('location')).toBe(`/v1/reservations/${reservation.id}`);
    expect(bodyOf(await read(`/v1/reservations/${reservation.id}`))).toEqual(reservation);
    const item = await read('/v1/inventory/1');
    expect(item.text).toBe('{"petId":1,"quantity":5,"reserved":2,"available":3,"status":"available"}');
    expect(item.headers.get('etag')).toBe('"2"');
    expect(bodyOf(await read('/v1/inventory'))).toEqual([
      { petId: 1, quantity: 5, reserved: 2, available: 3, status: 'available' },
    ]);
  });

  it('refuses bodies it cannot take with 400 invalid_body, holding nothing', async () => {
    for (const body of ['{"quantity":0}', '{"quantity":1,"ttlSeconds":86401}', '{"quantity":1,"for":"me"}', '{}']) {
      const response = await reserve(body);
      expect(response.status, body).toBe(400);
      expect(bodyOf(response).code).toBe('invalid_body');
    }
    expect(bodyOf(await read('/v1/inventory/1')).reserved).toBe(0);
  });

  it('answers 409 insufficient_stock past what is available, and 404 for an unknown pet', async () => {
    expect((await reserve('{"quantity":4}')).status).toBe(201);
    const refused = await reserve('{"quantity":2}');
    expect(refused.status).toBe(409);
    expect(bodyOf(refused)).toMatchObject({ code: 'insufficient_stock', status: 409 });
    const unknown = await fx.call('/v1/inventory/404/reservations', {
      method: 'POST',
      headers: jsonWith(key),
      body: '{"quantity":1}',
    });
    expect(bodyOf(unknown).code).toBe('pet_not_found');
  });

  it('commits once, answers a repeat the same, and refuses a release after it with reservation_committed', async () => {
    const { id } = bodyOf(await reserve('{"quantity":2}'));
    const committed = await commit(id);
    expect(committed.status).toBe(200);
    expect(bodyOf(committed).state).toBe('committed');
    expect((await commit(id)).text).toBe(committed.text);
    expect(bodyOf(await read('/v1/inventory/1'))).toMatchObject({ quantity: 3, reserved: 0, available: 3 });
    const history = bodyOf(await read('/v1/inventory/1/changes'));
    expect(history).toMatchObject([{ kind: 'reservation_commit', quantityBefore: 5, quantityAfter: 3, reason: null }]);
    const refused = await release(id);
    expect(refused.status).toBe(409);
    expect(bodyOf(refused).code).toBe('reservation_committed');
  });

  it('releases, and refuses a commit after it with reservation_released; an unknown id is 404', async () => {
    const { id } = bodyOf(await reserve('{"quantity":2}'));
    expect(bodyOf(await release(id)).state).toBe('released');
    expect(bodyOf(await release(id)).state).toBe('released');
    expect(bodyOf(await commit(id)).code).toBe('reservation_released');
    for (const response of [
      await read('/v1/reservations/res_nope'),
      await commit('res_nope'),
      await release('res_nope'),
    ]) {
      expect(response.status).toBe(404);
      expect(bodyOf(response).code).toBe('reservation_not_found');
    }
  });

  it('lets a hold expire at its time with nobody touching it: available again, a commit refused with reservation_expired', async () => {
    const { id } = bodyOf(await reserve('{"quantity":5,"ttlSeconds":30}'));
    fx.clock.advance(30_000);
    expect(bodyOf(await read(`/v1/reservations/${id}`)).state).toBe('expired');
    expect(bodyOf(await read('/v1/inventory/1'))).toMatchObject({ reserved: 0, available: 5 });
    const refused = await commit(id);
    expect(refused.status).toBe(409);
    expect(bodyOf(refused).code).toBe('reservation_expired');
  });

  it('refuses a PATCH below what is reserved with 409 quantity_below_reserved', async () => {
    await reserve('{"quantity":3}');
    const response = await fx.call('/v1/inventory/1', {
      method: 'PATCH',
      headers: jsonWith(key),
      body: '{"quantity":2}',
    });
    expect(response.status).toBe(409);
    expect(bodyOf(response).code).toBe('quantity_below_reserved');
  });

  it('replays a reserve sent again with its Idempotency-Key, and refuses the key on another body with 422', async () => {
    const first = await reserve('{"quantity":1}', { 'idempotency-key': 'checkout-42' });
    const again = await reserve('{"quantity":1}', { 'idempotency-key': 'checkout-42' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(bodyOf(await read('/v1/inventory/1')).reserved).toBe(1);
    const reused = await reserve('{"quantity":2}', { 'idempotency-key': 'checkout-42' });
    expect(reused.status).toBe(422);
    expect(bodyOf(reused).code).toBe('idempotency_key_reused');
  });

  it('needs inventory:write to reserve, commit and release, and inventory:read to read one', async () => {
    const reader = (await fx.issue({ plan: 'business', scopes: ['inventory:read'] })).authorization;
    const writer = (await fx.issue({ plan: 'business', scopes: ['inventory:write'] })).authorization;
    const { id } = bodyOf(await reserve('{"quantity":1}', {}, writer));
    for (const response of [
      await reserve('{"quantity":1}', {}, reader),
      await commit(id, reader),
      await release(id, reader),
    ]) {
      expect(response.status).toBe(403);
      expect(response.headers.get('www-authenticate')).toBe(
        'Bearer error="insufficient_scope", scope="inventory:write"',
      );
    }
    expect((await read(`/v1/reservations/${id}`, reader)).status).toBe(200);
    expect((await read(`/v1/reservations/${id}`, writer)).status).toBe(403);
  });
});
