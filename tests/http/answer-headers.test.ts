import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aPet } from '../../src/testing/index.js';
import { type HttpFixture, startHttpFixture } from './support/http-fixture.js';

const ENTERPRISE = { perMinute: 100_000, perDay: 1_000_000 };

/** An answer as it came over the wire: the header names as sent, in their order, and the body. */
interface RawAnswer {
  readonly status: number;
  readonly names: readonly string[];
  readonly header: (name: string) => string | undefined;
  readonly body: string;
}

function rawCall(
  origin: string,
  path: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const raw = res.rawHeaders;
        const names = raw.filter((_, i) => i % 2 === 0);
        resolve({
          status: res.statusCode ?? 0,
          names,
          header: (name) => {
            const at = names.indexOf(name);
            return at === -1 ? undefined : raw[at * 2 + 1];
          },
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

// What every answer to a key's request starts with, in this order and this spelling.
const COMMON = [
  'X-Request-Id',
  'Cache-Control',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
];
const NODE_ADDS = ['Date', 'Connection', 'Keep-Alive'];

/*
 * The list's 200 and 304 and a write's answer go out in one writeHead with the headers held for them;
 * every other answer sets the held headers first. Either way the fields, their spelling and their
 * order on the wire are the same.
 */
describe('the header fields of an answer, as sent', () => {
  let fx: HttpFixture;
  let key: string;
  beforeEach(async () => {
    fx = await startHttpFixture();
    key = await fx.bearer('enterprise', ENTERPRISE);
    await fx.addPets(aPet(1), aPet(2));
  });
  afterEach(async () => {
    await fx.close();
  });

  const call = (path: string, method = 'GET', headers: Record<string, string> = {}, body?: string) =>
    rawCall(fx.origin, path, method, { authorization: key, ...headers }, body);

  it('sends the whole list, read or kept, with the same fields in the same order, and its length', async () => {
    for (const answer of [await call('/v1/inventory'), await call('/v1/inventory')]) {
      expect(answer.status).toBe(200);
      expect(answer.names).toEqual([...COMMON, 'ETag', 'Content-Type', 'Content-Length', ...NODE_ADDS]);
      expect(answer.header('Cache-Control')).toBe('no-store');
      expect(answer.header('Content-Type')).toBe('application/json; charset=utf-8');
      expect(answer.header('Content-Length')).toBe(String(Buffer.byteLength(answer.body)));
      expect(JSON.parse(answer.body)).toHaveLength(2);
    }
  });

  it("answers HEAD of the list with the GET's fields and length, and no body", async () => {
    const get = await call('/v1/inventory');
    const head = await call('/v1/inventory', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.names).toEqual(get.names);
    expect(head.header('Content-Length')).toBe(get.header('Content-Length'));
    expect(head.header('ETag')).toBe(get.header('ETag'));
    expect(head.body).toBe('');
  });

  it('answers 304 to a tag the list still has, GET or HEAD, with its ETag and no body or length', async () => {
    const tag = (await call('/v1/inventory')).header('ETag') as string;
    for (const method of ['GET', 'HEAD']) {
      const answer = await call('/v1/inventory', method, { 'if-none-match': tag });
      expect(answer.status).toBe(304);
      expect(answer.names).toEqual([...COMMON, 'ETag', ...NODE_ADDS]);
      expect(answer.header('ETag')).toBe(tag);
      expect(answer.body).toBe('');
    }
  });

  it('logs and counts the status of an answer written at once', async () => {
    const tag = (await call('/v1/inventory')).header('ETag') as string;
    await call('/v1/inventory', 'GET', { 'if-none-match': tag });
    await call('/v1/inventory/1', 'PATCH', { 'content-type': 'application/json' }, '{"quantity":3}');
    const lines = fx.logLines.filter((line) => line.msg === 'request');
    expect(lines.map((line) => [line.method, line.route, line.status])).toEqual([
      ['GET', '/v1/inventory', 200],
      ['GET', '/v1/inventory', 304],
      ['PATCH', '/v1/inventory/:petId', 200],
    ]);
  });

  it('sends the held fields before a page’s Link, a refusal’s challenge and a 405’s Allow', async () => {
    const page = await call('/v1/inventory?limit=1');
    expect(page.names).toEqual([...COMMON, 'Link', 'Content-Type', 'Content-Length', ...NODE_ADDS]);
    const refused = await rawCall(fx.origin, '/v1/inventory', 'GET', { authorization: 'Bearer psk_nothing' });
    expect(refused.status).toBe(401);
    expect(refused.names).toEqual([...COMMON, 'WWW-Authenticate', 'Content-Type', 'Content-Length', ...NODE_ADDS]);
    const wrongMethod = await call('/v1/inventory', 'DELETE');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.names).toEqual([...COMMON, 'Allow', 'Content-Type', 'Content-Length', ...NODE_ADDS]);
    const badQuery = await call('/v1/inventory?limit=x');
    expect(badQuery.status).toBe(400);
    expect(badQuery.names).toEqual([...COMMON, 'Content-Type', 'Content-Length', ...NODE_ADDS]);
  });

  it("answers a PATCH with the entry's ETag, marked when replayed, and its refusals as before", async () => {
    const json = { 'content-type': 'application/json' };
    const first = await call('/v1/inventory/1', 'PATCH', { ...json, 'idempotency-key': 'k-1' }, '{"quantity":7}');
    expect(first.status).toBe(200);
    expect(first.names).toEqual([...COMMON, 'ETag', 'Content-Type', 'Content-Length', ...NODE_ADDS]);
    expect(first.header('Content-Length')).toBe(String(Buffer.byteLength(first.body)));
    expect(JSON.parse(first.body)).toMatchObject({ petId: 1, quantity: 7 });
    const again = await call('/v1/inventory/1', 'PATCH', { ...json, 'idempotency-key': 'k-1' }, '{"quantity":7}');
    expect(again.names).toEqual([
      ...COMMON,
      'Idempotent-Replayed',
      'ETag',
      'Content-Type',
      'Content-Length',
      ...NODE_ADDS,
    ]);
    expect(again.body).toBe(first.body);
    const stale = await call('/v1/inventory/1', 'PATCH', { ...json, 'if-match': '"999"' }, '{"quantity":7}');
    expect(stale.status).toBe(412);
    expect(stale.names).toEqual([...COMMON, 'ETag', 'Content-Type', 'Content-Length', ...NODE_ADDS]);
    const notJson = await call('/v1/inventory/1', 'PATCH', { 'content-type': 'text/plain' }, '{"quantity":7}');
    // Refused before its body was read: the connection is closed after the answer.
    expect(notJson.status).toBe(415);
    expect(notJson.names).toEqual([...COMMON, 'Content-Type', 'Content-Length', 'Connection', 'Date']);
    expect(notJson.header('Connection')).toBe('close');
    const adjusted = await call('/v1/inventory/2/adjustments', 'POST', json, '{"delta":1}');
    expect(adjusted.status).toBe(200);
    expect(adjusted.names).toEqual([...COMMON, 'ETag', 'Content-Type', 'Content-Length', ...NODE_ADDS]);
  });
});
