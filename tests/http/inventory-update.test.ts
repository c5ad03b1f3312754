import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { petId } from '../../src/domain/pet-id.js';
import type { PetStatus } from '../../src/domain/pet-status.js';
import { quantity } from '../../src/domain/quantity.js';
import { aPet, INT64_MAX, INT64_MIN } from '../../src/testing/index.js';
import { type ApiResponse, gate, type HttpFixture, jsonWith, startHttpFixture } from './support/http-fixture.js';

const errorOf = (response: ApiResponse): { code: string; message: string } => JSON.parse(response.text);

describe('PATCH /v1/inventory/{petId} (updateInventory)', () => {
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

  const patch = (path: string, body: string, headers: Record<string, string> = jsonWith(key)) =>
    fx.call(path, { method: 'PATCH', headers, body });

  const stockOf = async (id: number): Promise<string> => {
    const list = await fx.call('/v1/inventory', { headers: { authorization: key } });
    return JSON.stringify((JSON.parse(list.text) as { petId: number }[]).find((item) => item.petId === id));
  };

  describe('a valid update', () => {
    it('sets the quantity and answers the updated InventoryItem', async () => {
      const response = await patch('/v1/inventory/1', '{"quantity":12}');
      expect(response.status).toBe(200);
      expect(response.text).toBe('{"petId":1,"quantity":12,"reserved":0,"available":12,"status":"available"}');
      expect(await stockOf(1)).toBe('{"petId":1,"quantity":12,"reserved":0,"available":12,"status":"available"}');
    });

    it('records the change with the key’s id as the actor and the clock’s time', async () => {
      await patch('/v1/inventory/1', '{"quantity":7}');
      const [change] = (await fx.changes.history(petId(1n), { limit: 10 })) ?? [];
      const [record] = await fx.core.listApiKeys.execute();
      expect(change).toMatchObject({ actor: record?.id, atMs: fx.clock.nowMs() });
      expect(change?.before.quantity).toBe(5);
      expect(change?.after.quantity).toBe(7);
    });

    it('keeps the reason with the change: 200 characters, a character beyond the BMP counting once', async () => {
      const reason = `${'é'.repeat(198)}🐈 `;
      expect((await patch('/v1/inventory/1', JSON.stringify({ quantity: 7, reason }))).status).toBe(200);
      await patch('/v1/inventory/1', '{"quantity":8}');
      const changes = (await fx.changes.history(petId(1n), { limit: 10 })) ?? [];
      expect(changes.map((c) => [c.kind, c.reason])).toEqual([
        ['set', null],
        ['set', reason],
      ]);
    });

    it.each([
      ['0', 0],
      ['2147483647', 2147483647],
      ['1e3', 1000],
      ['5.0', 5],
      ['2.5e1', 25],
      ['-0', 0],
    ])('takes the quantity %s as the integer %d', async (literal, value) => {
      const response = await patch('/v1/inventory/1', `{"quantity":${literal}}`);
      expect(response.status).toBe(200);
      expect(JSON.parse(response.text)).toMatchObject({ quantity: value });
    });

    it('takes a charset parameter on the JSON media type', async () => {
      const headers = { authorization: key, 'content-type': 'application/json; charset=utf-8' };
      expect((await patch('/v1/inventory/1', '{"quantity":3}', headers)).status).toBe(200);
    });
  });

  describe('the status rule', () => {
    it.each<[PetStatus, number, PetStatus]>([
      ['available', 0, 'sold'],
      ['pending', 0, 'sold'],
      ['sold', 4, 'available'],
      ['sold', 0, 'sold'],
      ['pending', 3, 'pending'],
      ['available', 9, 'available'],
    ])('moves %s with quantity %d to %s', async (before, newQuantity, after) => {
      await fx.addPets(aPet(2, { status: before }));
      const response = await patch('/v1/inventory/2', `{"quantity":${newQuantity}}`);
      expect(JSON.parse(response.text)).toEqual({
        petId: 2,
        quantity: newQuantity,
        reserved: 0,
        available: newQuantity,
        status: after,
      });
    });
  });

  describe('int64 pet ids', () => {
    it.each([
      ['the largest', INT64_MAX],
      ['the smallest', INT64_MIN],
    ])('round-trips %s id exactly through the update and the list', async (_, id) => {
      await fx.addPets(aPet(id));
      const response = await patch(`/v1/inventory/${id}`, '{"quantity":8}');
      expect(response.status).toBe(200);
      expect(response.text).toBe(`{"petId":${id},"quantity":8,"reserved":0,"available":8,"status":"available"}`);
      const list = await fx.call('/v1/inventory', { headers: { authorization: key } });
      expect(list.text).toContain(`{"petId":${id},"quantity":8,"reserved":0,"available":8,"status":"available"}`);
      expect(list.exact()).toContainEqual({ petId: id, quantity: 8, reserved: 0, available: 8, status: 'available' });
    });
  });

  describe('a body that is missing or invalid: 400 invalid_body, naming what is wrong, changing nothing', () => {
    it.each([
      ['an empty object', '{}', /quantity is required/],
      ['a negative quantity', '{"quantity":-1}', /quantity must be an integer from 0 to 2147483647/],
      ['a fraction', '{"quantity":1.5}', /quantity must be an integer/],
      ['a string', '{"quantity":"5"}', /quantity must be an integer/],
      ['null', '{"quantity":null}', /quantity must be an integer/],
      ['a boolean', '{"quantity":true}', /quantity must be an integer/],
      ['1e20', '{"quantity":1e20}', /quantity must be an integer/],
      ['2147483648', '{"quantity":2147483648}', /quantity must be an integer/],
      ['a fraction that doubles round into range', '{"quantity":2147483646.99999999999999}', /quantity must be/],
      ['a huge integer', `{"quantity":${'9'.repeat(400)}}`, /quantity must be an integer/],
      ['a huge exponent', '{"quantity":1e999999999}', /quantity must be an integer/],
      ['an object', '{"quantity":{"value":1}}', /quantity must be an integer/],
      ['truncated JSON', '{"quantity":', /not valid JSON/],
      ['an array', '[{"quantity":1}]', /must be a JSON object/],
      ['a bare number', '5', /must be a JSON object/],
      ['null as the body', 'null', /must be a JSON object/],
      ['an empty body', '', /the body is empty/],
      ['only whitespace', '   ', /the body is empty/],
      ['an unknown field', '{"quantity":1,"note":"x"}', /unknown field "note"/],
      ['a duplicated field', '{"quantity":1,"quantity":2}', /not valid JSON: Duplicate key/],
      ['single quotes', "{'quantity':1}", /not valid JSON/],
      ['an empty reason', '{"quantity":1,"reason":""}', /reason must be a string of 1 to 200 characters/],
      ['a reason of 201 characters', `{"quantity":1,"reason":"${'r'.repeat(201)}"}`, /reason must be/],
      ['a reason with a line feed', '{"quantity":1,"reason":"a\\nb"}', /without control characters/],
      ['a reason with a C1 control', '{"quantity":1,"reason":"a\\u0085b"}', /without control characters/],
      ['a reason with a right-to-left override', '{"quantity":1,"reason":"a\\u202eb"}', /without control characters/],
      ['a reason with an embedding', '{"quantity":1,"reason":"a\\u202ab"}', /without control characters/],
      ['a reason with a right-to-left isolate', '{"quantity":1,"reason":"a\\u2067b"}', /without control characters/],
      ['a reason with a pop isolate', '{"quantity":1,"reason":"a\\u2069b"}', /without control characters/],
      ['a reason with a left-to-right mark', '{"quantity":1,"reason":"a\\u200eb"}', /without control characters/],
      ['a reason with a right-to-left mark', '{"quantity":1,"reason":"a\\u200fb"}', /without control characters/],
      ['a reason with an Arabic letter mark', '{"quantity":1,"reason":"a\\u061cb"}', /without control characters/],
      ['a reason that is not a string', '{"quantity":1,"reason":5}', /reason must be a string/],
      ['a null reason', '{"quantity":1,"reason":null}', /reason must be a string/],
    ])('refuses %s', async (_, body, message) => {
      const response = await patch('/v1/inventory/1', body);
      expect(response.status).toBe(400);
      expect(errorOf(response).code).toBe('invalid_body');
      expect(errorOf(response).message).toMatch(message);
      expect(await stockOf(1)).toBe('{"petId":1,"quantity":5,"reserved":0,"available":5,"status":"available"}');
    });
  });

  describe('a body whose bytes are not UTF-8: 400 invalid_body, changing nothing', () => {
    it.each([
      ['a lone continuation byte', [0x80]],
      ['an overlong encoding', [0xc0, 0xaf]],
      ['a sequence cut short', [0xe2, 0x82]],
    ])('refuses %s in a reason', async (_, bytes) => {
      const body = Buffer.concat([Buffer.from('{"quantity":1,"reason":"a'), Buffer.from(bytes), Buffer.from('"}')]);
      const response = await fx.call('/v1/inventory/1', { method: 'PATCH', headers: jsonWith(key), body });
      expect(response.status).toBe(400);
      expect(errorOf(response)).toMatchObject({
        code: 'invalid_body',
        message: expect.stringMatching(/not valid UTF-8/),
      });
      expect(await stockOf(1)).toBe('{"petId":1,"quantity":5,"reserved":0,"available":5,"status":"available"}');
    });

    it('takes U+FFFD sent escaped', async () => {
      expect((await patch('/v1/inventory/1', '{"quantity":1,"reason":"\\ufffd"}')).status).toBe(200);
    });
  });

  describe('a petId that is not a base-10 int64: 400 invalid_pet_id', () => {
    it.each([
      'abc',
      '1.5',
      '1e3',
      '99999999999999999999',
      '9223372036854775808',
      '-9223372036854775809',
      '007',
      '+5',
      '-0',
      '0x10',
      '%20',
    ])('refuses %s', async (id) => {
      const response = await patch(`/v1/inventory/${id}`, '{"quantity":1}');
      expect(response.status).toBe(400);
      expect(errorOf(response).code).toBe('invalid_pet_id');
      expect(errorOf(response).message).toMatch(/^petId must be a base-10 signed 64-bit integer/);
    });
  });

  describe('an unknown pet', () => {
    it('answers 404 pet_not_found', async () => {
      const response = await patch('/v1/inventory/404', '{"quantity":1}');
      expect(response.status).toBe(404);
      expect(errorOf(response)).toMatchObject({ code: 'pet_not_found', message: 'no pet has id 404' });
    });
  });

  describe('a body that is not JSON: 415 unsupported_media_type', () => {
    it.each([
      ['text/plain', { 'content-type': 'text/plain' }],
      ['a form', { 'content-type': 'application/x-www-form-urlencoded' }],
      ['no content type', {}],
      ['a compressed body', { 'content-type': 'application/json', 'content-encoding': 'gzip' }],
    ])('refuses %s', async (_, headers) => {
      const response = await patch('/v1/inventory/1', '{"quantity":1}', { authorization: key, ...headers });
      expect(response.status).toBe(415);
      expect(errorOf(response).code).toBe('unsupported_media_type');
      expect(await stockOf(1)).toBe('{"petId":1,"quantity":5,"reserved":0,"available":5,"status":"available"}');
    });
  });

  describe('a body over 16 KiB: 413 payload_too_large', () => {
    const padded = (bytes: number): string => `{"quantity":1}${' '.repeat(bytes - '{"quantity":1}'.length)}`;

    it('takes a body of exactly 16 KiB', async () => {
      expect((await patch('/v1/inventory/1', padded(16 * 1024))).status).toBe(200);
    });

    it('refuses a body one byte over', async () => {
      const response = await patch('/v1/inventory/1', padded(16 * 1024 + 1));
      expect(response.status).toBe(413);
      expect(errorOf(response)).toMatchObject({
        code: 'payload_too_large',
        message: 'the body is larger than 16384 bytes',
      });
    });

    it('refuses a large body sent without a length (chunked)', async () => {
      const chunks = [padded(10_000), ' '.repeat(10_000)];
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = chunks.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(new TextEncoder().encode(next));
        },
      });
      const response = await fx.call('/v1/inventory/1', {
        method: 'PATCH',
        headers: jsonWith(key),
        body,
        duplex: 'half',
      } as RequestInit);
      expect(response.status).toBe(413);
    });
  });
});

/** Sends the headers of a PATCH and part of its body, then closes the connection. */
async function leaveMidBody(origin: string, authorization: string): Promise<void> {
  const socket = connect(Number(new URL(origin).port), '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(
    `PATCH /v1/inventory/1 HTTP/1.1\r\nHost: x\r\nAuthorization: ${authorization}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"quantity":',
  );
  socket.destroy();
}

const messages = (fx: HttpFixture): unknown[] => fx.logLines.map((line) => line.msg);

describe('a body cut off by a client that left: the client’s failure, not the service’s', () => {
  const expectLoggedAsClientFailure = (fx: HttpFixture): void => {
    expect(fx.logLines.find((line) => line.msg === 'request')).toMatchObject({ status: 400 });
    expect(fx.logLines.filter((line) => Number(line.level) >= 40)).toEqual([]);
  };

  it('while the service reads it', async () => {
    const fx = await startHttpFixture();
    try {
      await fx.addPets(aPet(1));
      await leaveMidBody(fx.origin, await fx.bearer('free'));
      await vi.waitFor(() => expect(messages(fx)).toContain('request'));
      await vi.waitFor(() => expect(messages(fx)).toContain('the client left before the exchange ended'));
      expectLoggedAsClientFailure(fx);
    } finally {
      await fx.close();
    }
  });

  it('before the service began to read it', async () => {
    const hold = gate();
    // The limiter is held, so the body is read only once the client is known to have gone.
    const fx = await startHttpFixture({
      limiter: (memory) => ({
        admit: async (subject, policy) => hold.passed.then(() => memory.admit(subject, policy)),
        peek: (subject, policy) => memory.peek(subject, policy),
      }),
    });
    try {
      await fx.addPets(aPet(1));
      await leaveMidBody(fx.origin, await fx.bearer('free'));
      await vi.waitFor(() => expect(messages(fx)).toContain('the client left before the exchange ended'));
      hold.open();
      await vi.waitFor(() => expect(messages(fx)).toContain('request'));
      expectLoggedAsClientFailure(fx);
    } finally {
      hold.open();
      await fx.close();
    }
  });
});
