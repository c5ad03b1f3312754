import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InventoryCore } from '../../src/application/inventory-core.js';
import { readConfig } from '../../src/composition/config.js';
import type { HttpApp } from '../../src/composition/http-app.js';
import { composeService, PART, serviceLifecycle } from '../../src/composition/service-parts.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { aPet } from '../../src/testing/index.js';
import { delegateInventory } from '../support/delegate-inventory.js';
import { type ApiResponse, type HttpFixture, jsonWith, startHttpFixture } from './support/http-fixture.js';

const ENTERPRISE = { perMinute: 100_000, perDay: 1_000_000 };

const codeOf = (response: ApiResponse): string => (JSON.parse(response.text) as { code: string }).code;

describe('conditional requests (RFC 9110 section 13)', () => {
  let fx: HttpFixture;
  let key: string;
  beforeEach(async () => {
    fx = await startHttpFixture();
    key = await fx.bearer('enterprise', ENTERPRISE);
    await fx.addPets(aPet(1, { quantity: quantity(5) }));
  });
  afterEach(async () => {
    await fx.close();
  });

  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    fx.call(path, { method, headers: { authorization: key, ...headers } });
  const patch = (path: string, body: string, headers: Record<string, string> = {}) =>
    fx.call(path, { method: 'PATCH', headers: { ...jsonWith(key), ...headers }, body });
  const historyLength = async (id: bigint): Promise<number> =>
    (await fx.changes.history(petId(id), { limit: 1_000 }))?.length ?? -1;

  describe('GET /v1/inventory/{petId} (getInventoryItem)', () => {
    it('answers the InventoryItem with its version as a strong ETag, never in the body', async () => {
      const response = await get('/v1/inventory/1');
      expect(response.status).toBe(200);
      expect(response.text).toBe('{"petId":1,"quantity":5,"reserved":0,"available":5,"status":"available"}');
      expect(response.headers.get('etag')).toBe('"1"');
    });

    it('moves the ETag with every stock change, one version each', async () => {
      await patch('/v1/inventory/1', '{"quantity":6}');
      await patch('/v1/inventory/1', '{"quantity":7}');
      expect((await get('/v1/inventory/1')).headers.get('etag')).toBe('"3"');
    });

    it('answers HEAD with the ETag and no body', async () => {
      const response = await get('/v1/inventory/1', {}, 'HEAD');
      expect(response.status).toBe(200);
      expect(response.text).toBe('');
      expect(response.headers.get('etag')).toBe('"1"');
    });

    it('answers 404 pet_not_found for an unknown pet and 400 invalid_pet_id for a bad id', async () => {
      expect(codeOf(await get('/v1/inventory/2'))).toBe('pet_not_found');
      expect(codeOf(await get('/v1/inventory/1e3'))).toBe('invalid_pet_id');
    });

    it('answers 304 without a body when If-None-Match names the current ETag, and 200 once it moved', async () => {
      const notModified = await get('/v1/inventory/1', { 'if-none-match': '"1"' });
      expect(notModified.status).toBe(304);
      expect(notModified.text).toBe('');
      expect(notModified.headers.get('etag')).toBe('"1"');
      await patch('/v1/inventory/1', '{"quantity":6}');
      const changed = await get('/v1/inventory/1', { 'if-none-match': '"1"' });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).toBe('"2"');
    });
  });

  describe('PATCH with If-Match', () => {
    it('writes when a listed tag is the current one, and answers the new ETag', async () => {
      const response = await patch('/v1/inventory/1', '{"quantity":9}', { 'if-match': '"7", "1"' });
      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).toBe('"2"');
      expect(response.text).toBe('{"petId":1,"quantity":9,"reserved":0,"available":9,"status":"available"}');
    });

    it('answers a stale tag with 412 precondition_failed and the current ETag, and writes nothing', async () => {
      await patch('/v1/inventory/1', '{"quantity":6}');
      const response = await patch('/v1/inventory/1', '{"quantity":0}', { 'if-match': '"1"' });
      expect(response.status).toBe(412);
      expect(codeOf(response)).toBe('precondition_failed');
      expect(response.headers.get('etag')).toBe('"2"');
      expect((await get('/v1/inventory/1')).text).toBe(
        '{"petId":1,"quantity":6,"reserved":0,"available":6,"status":"available"}',
      );
      expect(await historyLength(1n)).toBe(1);
    });

    it.each([
      ['a weak tag of the current version', 'W/"1"'],
      ['a spelling of it with a leading zero', '"01"'],
      ['a tag that is no version', '"abc"'],
      ['an empty tag', '""'],
    ])('never matches %s (strong comparison)', async (_, field) => {
      const response = await patch('/v1/inventory/1', '{"quantity":2}', { 'if-match': field });
      expect(response.status).toBe(412);
      expect(await historyLength(1n)).toBe(0);
    });

    it('takes * as any existing entry, and still answers 404 for a pet that does not exist', async () => {
      expect((await patch('/v1/inventory/1', '{"quantity":2}', { 'if-match': '*' })).status).toBe(200);
      const missing = await patch('/v1/inventory/2', '{"quantity":2}', { 'if-match': '*' });
      expect(missing.status).toBe(404);
      expect(codeOf(missing)).toBe('pet_not_found');
    });

    it('answers 404 before 412 for an unknown pet with a tag', async () => {
      expect((await patch('/v1/inventory/2', '{"quantity":2}', { 'if-match': '"1"' })).status).toBe(404);
    });

    it('takes empty list elements and a comma inside a tag', async () => {
      expect((await patch('/v1/inventory/1', '{"quantity":2}', { 'if-match': ' , "a,b" ,,"1" ,' })).status).toBe(200);
    });

    it.each([
      ['a bare version', '1'],
      ['an unclosed tag', '"1'],
      ['* among tags', '*, "1"'],
      ['a lower-case weak prefix', 'w/"1"'],
      ['a space inside a tag', '"1 2"'],
      ['two tags without a comma', '"1" "2"'],
      ['no tag at all', ' , '],
      ['an empty field', ''],
    ])('refuses %s with 400 invalid_if_match, writing nothing', async (_, field) => {
      const response = await patch('/v1/inventory/1', '{"quantity":2}', { 'if-match': field });
      expect(response.status).toBe(400);
      expect(codeOf(response)).toBe('invalid_if_match');
      expect(await historyLength(1n)).toBe(0);
    });
  });

  describe('the whole list', () => {
    const list = (headers: Record<string, string> = {}, query = '', method = 'GET') =>
      get(`/v1/inventory${query}`, headers, method);

    it('carries a weak ETag, and answers 304 with no body but the rate-limit headers to If-None-Match', async () => {
      const first = await list();
      const tag = first.headers.get('etag') as string;
      expect(tag).toMatch(/^W\/"[!#-~]+"$/);
      const second = await list({ 'if-none-match': tag });
      expect(second.status).toBe(304);
      expect(second.text).toBe('');
      expect(second.headers.get('etag')).toBe(tag);
      expect(second.headers.get('x-ratelimit-remaining')).toBe(String(ENTERPRISE.perMinute - 2));
      expect((await list({ 'if-none-match': tag }, '', 'HEAD')).status).toBe(304);
    });

    it('compares weakly: the strong spelling of the tag, or one among others, also answers 304', async () => {
      const tag = (await list()).headers.get('etag') as string;
      expect((await list({ 'if-none-match': tag.slice(2) })).status).toBe(304);
      expect((await list({ 'if-none-match': `"other", ${tag}` })).status).toBe(304);
      expect((await list({ 'if-none-match': '*' })).status).toBe(304);
    });

    it('answers 200 with a new ETag once the list changed', async () => {
      const tag = (await list()).headers.get('etag') as string;
      await patch('/v1/inventory/1', '{"quantity":0}');
      const after = await list({ 'if-none-match': tag });
      expect(after.status).toBe(200);
      expect(after.text).toBe('[{"petId":1,"quantity":0,"reserved":0,"available":0,"status":"sold"}]');
      expect(after.headers.get('etag')).not.toBe(tag);
      await fx.addPets(aPet(2));
      expect((await list({ 'if-none-match': after.headers.get('etag') as string })).status).toBe(200);
    });

    it('answers a malformed If-None-Match in full, as if it were absent', async () => {
      const response = await list({ 'if-none-match': 'not a tag' });
      expect(response.status).toBe(200);
      expect(response.text).toBe('[{"petId":1,"quantity":5,"reserved":0,"available":5,"status":"available"}]');
    });

    it('tags a streamed list too, and answers 304 to it', async () => {
      await fx.addPets(...Array.from({ length: 2_500 }, (_, i) => aPet(i + 10)));
      const streamed = await list();
      expect(streamed.headers.get('transfer-encoding')).toBe('chunked');
      const tag = streamed.headers.get('etag') as string;
      expect(tag).toMatch(/^W\//);
      expect((await list({ 'if-none-match': tag })).status).toBe(304);
    });

    it('leaves a paged list untagged, and never answers it 304', async () => {
      const tag = (await list()).headers.get('etag') as string;
      for (const query of ['?limit=5', '?after=0']) {
        const page = await list({ 'if-none-match': tag }, query);
        expect(page.status).toBe(200);
        expect(page.headers.get('etag')).toBeNull();
      }
    });
  });
});

describe('a store whose stamp holds characters an entity tag cannot', () => {
  it('tags the list with a hash of the stamp, and answers 304 to it', async () => {
    const fx = await startHttpFixture({
      inventory: (memory) => delegateInventory(memory, { stamp: async () => 'epoch "7" of\u00a0the store' }),
    });
    try {
      const key = await fx.bearer('pro');
      const first = await fx.call('/v1/inventory', { headers: { authorization: key } });
      const tag = first.headers.get('etag') as string;
      expect(tag).toMatch(/^W\/"[A-Za-z0-9_-]{43}"$/);
      const second = await fx.call('/v1/inventory', { headers: { authorization: key, 'if-none-match': tag } });
      expect(second.status).toBe(304);
    } finally {
      await fx.close();
    }
  });
});

describe('with PETSTORE_REQUIRE_IF_MATCH (requireIfMatch)', () => {
  let fx: HttpFixture;
  let key: string;
  beforeEach(async () => {
    fx = await startHttpFixture({ requireIfMatch: true });
    key = await fx.bearer('enterprise', ENTERPRISE);
    await fx.addPets(aPet(1));
  });
  afterEach(async () => {
    await fx.close();
  });

  const patch = (headers: Record<string, string>) =>
    fx.call('/v1/inventory/1', { method: 'PATCH', headers: { ...jsonWith(key), ...headers }, body: '{"quantity":3}' });

  it('refuses a PATCH without If-Match with 428 precondition_required, writing nothing', async () => {
    const response = await patch({});
    expect(response.status).toBe(428);
    expect(codeOf(response)).toBe('precondition_required');
    expect(await fx.changes.history(petId(1n), { limit: 10 })).toEqual([]);
  });

  it('takes a PATCH with If-Match', async () => {
    expect((await patch({ 'if-match': '"1"' })).status).toBe(200);
    expect((await patch({ 'if-match': '"1"' })).status).toBe(412);
  });

  it('does not store a 428 under an Idempotency-Key: the corrected retry is a first request', async () => {
    expect((await patch({ 'idempotency-key': 'k-428' })).status).toBe(428);
    const retried = await patch({ 'idempotency-key': 'k-428', 'if-match': '"1"' });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('PETSTORE_REQUIRE_IF_MATCH=true, through the composition root', () => {
  it('makes the served app answer a PATCH without If-Match with 428', async () => {
    const config = readConfig({ PETSTORE_REQUIRE_IF_MATCH: 'true' });
    const container = await composeService({
      config,
      lifecycle: serviceLifecycle(config),
      logger: pino({ level: 'silent' }),
      storage: 'memory',
      limiter: 'in-process',
      reach: { to: 'app', http: { readiness: { ready: true } } },
    });
    const core = container.get<InventoryCore>(PART.core);
    const { key } = await core.issueApiKey.execute({ plan: 'pro' });
    expect((await core.addPets.execute([aPet(1)])).ok).toBe(true);
    const server = createServer(container.get<HttpApp>(PART.httpApp).callback());
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const { port } = server.address() as AddressInfo;
      const patch = (headers: Record<string, string>) =>
        fetch(`http://127.0.0.1:${port}/v1/inventory/1`, {
          method: 'PATCH',
          headers: { ...jsonWith(`Bearer ${key}`), ...headers },
          body: '{"quantity":3}',
        });
      expect((await patch({})).status).toBe(428);
      expect((await patch({ 'if-match': '"1"' })).status).toBe(200);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    }
  });
});
