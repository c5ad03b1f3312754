import { describe, expect, it } from 'vitest';
import { failing, lintOpenApi } from '../../scripts/lint-openapi.js';

/** A small OpenAPI 3.1 document with one GET whose 200 has `headers` and an integer query `limit`. */
function documentWith(headers: Record<string, unknown>, limit: Record<string, unknown>) {
  return {
    openapi: '3.1.0',
    info: { title: 'T', version: '1.0.0', description: 'A test document.' },
    servers: [{ url: 'https://api.example.com/v1', description: 'production', 'x-internal': false }],
    tags: [{ name: 'a', description: 'A.' }],
    security: [{ bearer: [] }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths: {
      '/things': {
        get: {
          operationId: 'listThings',
          summary: 'List things',
          description: 'Things.',
          tags: ['a'],
          parameters: [{ name: 'limit', in: 'query', description: 'At most.', schema: limit }],
          responses: {
            '200': {
              description: 'Things.',
              headers,
              content: { 'application/json': { schema: { type: 'boolean' } } },
            },
          },
        },
      },
    },
  };
}

const LIMITED = { 'X-RateLimit-Limit': { schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 9 } } };
const BOUNDED = { type: 'integer', format: 'int32', minimum: 1, maximum: 10 };

const failingCodes = async (document: unknown): Promise<string[]> =>
  failing(await lintOpenApi(document)).map((f) => f.code);

describe('the API description lint', () => {
  it('asks every 2xx and 4xx answer for rate-limit headers, accepting both families at once', async () => {
    expect(await failingCodes(documentWith({}, BOUNDED))).toContain('petstore-rate-limit-headers');
    const both = { ...LIMITED, RateLimit: { schema: { type: 'string', maxLength: 9, pattern: '^a$' } } };
    expect(await failingCodes(documentWith(both, BOUNDED))).not.toContain('petstore-rate-limit-headers');
  });

  it('asks every integer but an int64 for its bounds', async () => {
    const open = { type: 'integer', format: 'int32', minimum: 1 };
    expect(await failingCodes(documentWith(LIMITED, open))).toContain('petstore-integer-limit');
    const int64 = { type: 'integer', format: 'int64' };
    expect(await failingCodes(documentWith(LIMITED, int64))).not.toContain('petstore-integer-limit');
  });

  it('still fails on the OWASP rules it keeps as errors, e.g. an integer without a format', async () => {
    const unformatted = { type: 'integer', minimum: 1, maximum: 10 };
    expect(await failingCodes(documentWith(LIMITED, unformatted))).toContain('owasp:api4:2023-integer-format');
  });
});
