import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createHttpApp, type HttpAppDeps } from '../../src/adapters/http/create-http-app.js';
import { aPet } from '../../src/testing/index.js';
import { type HttpFixture, jsonWith, startHttpFixture } from './support/http-fixture.js';
import { TEST_SERVERS } from './support/openapi-contract.js';

/** Deps whose use cases are never called: building the app must not touch them. */
const unusedDeps = (options: Partial<HttpAppDeps['options']>): HttpAppDeps =>
  ({
    clock: { nowMs: () => 0 },
    readiness: () => true,
    options: { sunsetAt: new Date('2026-07-01T00:00:00Z'), servers: TEST_SERVERS, trustProxy: false, ...options },
  }) as HttpAppDeps;

describe('createHttpApp', () => {
  it('builds the app without listening: the caller owns the socket', () => {
    const app = createHttpApp(unusedDeps({}));
    expect(typeof app.callback()).toBe('function');
  });

  it('serves no API reference page of its own: /docs is the server’s, passed in as pages', async () => {
    const server = createServer(createHttpApp(unusedDeps({})).callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const answers = await Promise.all(
        ['/docs', '/docs/scalar.js'].map(async (path) => (await fetch(`http://127.0.0.1:${port}${path}`)).status),
      );
      expect(answers).toEqual([404, 404]);
    } finally {
      server.close();
    }
  });

  it.each([
    ['a server URL that does not end in /v1', { servers: { ...TEST_SERVERS, staging: 'https://staging.example/v2' } }],
    ['a server URL with a trailing slash', { servers: { ...TEST_SERVERS, production: 'https://api.example/v1/' } }],
    ['a server that is not a URL', { servers: { ...TEST_SERVERS, production: 'api.example/v1' } }],
    ['a body limit of 0', { bodyLimitBytes: 0 }],
    ['a fractional body limit', { bodyLimitBytes: 1.5 }],
    ['an invalid sunset date', { sunsetAt: new Date('not a date') }],
    ['an invalid deprecation date', { deprecatedAt: new Date('not a date') }],
  ])('refuses %s', (_, options) => {
    expect(() => createHttpApp(unusedDeps(options))).toThrow(RangeError);
  });

  it('takes its body limit from the options', async () => {
    const fx: HttpFixture = await startHttpFixture({ bodyLimitBytes: 100 });
    try {
      const key = await fx.bearer('free');
      await fx.addPets(aPet(1));
      const body = (bytes: number) => `{"quantity":1}${' '.repeat(bytes - 14)}`;
      const patch = (bytes: number) =>
        fx.call('/v1/inventory/1', { method: 'PATCH', headers: jsonWith(key), body: body(bytes) });
      expect((await patch(100)).status).toBe(200);
      const refused = await patch(101);
      expect(refused.status).toBe(413);
      expect(JSON.parse(refused.text)).toMatchObject({ message: 'the body is larger than 100 bytes' });
    } finally {
      await fx.close();
    }
  });
});
