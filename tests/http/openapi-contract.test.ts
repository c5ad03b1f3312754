import { describe, expect, it } from 'vitest';
import { expectMatchesDocument, type ReceivedResponse } from './support/openapi-contract.js';

// The checker every HTTP test relies on must itself be able to fail: these feed it answers that break
// the document in one way each.

const limitHeaders = {
  'x-request-id': 'req-1',
  'x-ratelimit-limit': '60',
  'x-ratelimit-remaining': '59',
  'x-ratelimit-reset': '1767225661',
  'ratelimit-policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
  ratelimit: '"minute";r=59;t=61',
  'content-type': 'application/json; charset=utf-8',
};

interface Overrides extends Partial<Omit<ReceivedResponse, 'headers'>> {
  readonly headers?: Record<string, string>;
}

const answer = ({ headers, ...overrides }: Overrides): ReceivedResponse => ({
  method: 'GET',
  path: '/v1/inventory',
  status: 200,
  text: '[{"petId":9223372036854775807,"quantity":1,"reserved":0,"available":1,"status":"available"}]',
  ...overrides,
  headers: new Headers(headers ?? limitHeaders),
});

const withoutHeader = (name: string): Record<string, string> =>
  Object.fromEntries(Object.entries(limitHeaders).filter(([key]) => key !== name));

describe('the response checker', () => {
  it('accepts a documented answer', () => {
    expect(() => expectMatchesDocument(answer({}))).not.toThrow();
  });

  it('refuses a body that breaks the response schema', () => {
    const text = '[{"petId":1,"quantity":1}]';
    expect(() => expectMatchesDocument(answer({ text }))).toThrow(/data\/0 must have required/);
  });

  it('refuses a status the operation does not document', () => {
    const text = '{"code":"gone","message":"x","status":410}';
    expect(() => expectMatchesDocument(answer({ status: 410, text }))).toThrow(/not documented/);
  });

  it('refuses a /v1 answer without a rate-limit header', () => {
    expect(() => expectMatchesDocument(answer({ headers: withoutHeader('ratelimit') }))).toThrow(/lacks ratelimit/);
  });

  it('refuses an answer without X-Request-Id', () => {
    expect(() => expectMatchesDocument(answer({ headers: withoutHeader('x-request-id') }))).toThrow();
  });

  it('refuses an Error body whose status differs from the response’s', () => {
    const text = '{"code":"unauthorized","message":"x","status":400}';
    expect(() => expectMatchesDocument(answer({ status: 401, text }))).toThrow();
  });

  it('refuses a 401 without its WWW-Authenticate challenge', () => {
    const text = '{"code":"unauthorized","message":"x","status":401}';
    expect(() => expectMatchesDocument(answer({ status: 401, text }))).toThrow();
  });

  it('refuses a 429 without Retry-After', () => {
    const text = '{"code":"rate_limited","message":"x","status":429}';
    expect(() => expectMatchesDocument(answer({ status: 429, text }))).toThrow();
  });

  it('refuses a documented header whose value breaks its schema', () => {
    const headers = { ...limitHeaders, 'x-ratelimit-remaining': 'many' };
    expect(() => expectMatchesDocument(answer({ headers }))).toThrow(/X-RateLimit-Remaining/);
  });

  it('refuses a body on an answer documented without one (a 304)', () => {
    const headers = { ...limitHeaders, etag: 'W/"a.1"' };
    expect(() => expectMatchesDocument(answer({ status: 304, headers, text: '' }))).not.toThrow();
    expect(() => expectMatchesDocument(answer({ status: 304, headers, text: '[]' }))).toThrow(/no body/);
  });

  it('checks a header by the component it refers to, not by its field name', () => {
    const item = {
      method: 'GET',
      path: '/v1/inventory/1',
      text: '{"petId":1,"quantity":1,"reserved":0,"available":1,"status":"sold"}',
    };
    expect(() => expectMatchesDocument(answer({ ...item, headers: { ...limitHeaders, etag: '"3"' } }))).not.toThrow();
    expect(() => expectMatchesDocument(answer({ ...item, headers: { ...limitHeaders, etag: 'W/"3"' } }))).toThrow(
      /ETag/,
    );
    const link = { ...limitHeaders, link: '</v1/inventory?after=1&limit=1>; rel="prev"' };
    expect(() => expectMatchesDocument(answer({ headers: link }))).toThrow(/Link/);
  });

  it('refuses a 404 on a path that exists (it must be 405)', () => {
    const text = '{"code":"not_found","message":"x","status":404}';
    expect(() => expectMatchesDocument(answer({ method: 'DELETE', status: 404, text }))).toThrow(/off the documented/);
  });
});
