import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClientSources, int64Properties } from '../../scripts/client-codegen.js';
import { type HttpFixture, startHttpFixture } from '../http/support/http-fixture.js';

const root = join(import.meta.dirname, '..', '..');

describe('the typed client’s generated sources', () => {
  let fixture: HttpFixture;
  beforeAll(async () => {
    fixture = await startHttpFixture();
  });
  afterAll(() => fixture.close());

  it('match the document the service serves (run `npm run generate` when this fails)', async () => {
    const served: unknown = await (await fetch(`${fixture.origin}/v1/openapi.json`)).json();
    const sources = await generateClientSources(served);
    expect(Object.keys(sources).length).toBe(2);
    for (const [path, text] of Object.entries(sources)) {
      expect(readFileSync(join(root, path), 'utf8'), `${path} is stale: run npm run generate`).toBe(text);
    }
  });

  it('type every int64 as a bigint', async () => {
    const types = readFileSync(join(root, 'src/client/generated/openapi.ts'), 'utf8');
    expect(types).toMatch(/petId: bigint;/);
    expect(types).not.toMatch(/petId\??: number;/);
  });
});

describe('the int64 properties the client reads as bigints', () => {
  const schema = (properties: Record<string, unknown>) => ({ components: { schemas: { A: { properties } } } });

  it('are the names whose schema is int64', () => {
    expect(int64Properties(schema({ id: { type: 'integer', format: 'int64' }, n: { type: 'integer' } }))).toEqual([
      'id',
    ]);
  });

  it('refuse a name that is int64 in one schema and another number in another: it could not be read by name', () => {
    const doc = {
      components: {
        schemas: { A: { properties: { id: { format: 'int64' } } }, B: { properties: { id: { type: 'integer' } } } },
      },
    };
    expect(() => int64Properties(doc)).toThrow(/both int64 and not: id/);
  });

  it('take a name that is int64 in one schema and a string in another: the reader leaves strings alone', () => {
    const doc = {
      components: {
        schemas: {
          A: { properties: { id: { format: 'int64' } } },
          B: { properties: { id: { type: 'string' }, name: { type: ['string', 'null'] } } },
        },
      },
    };
    expect(int64Properties(doc)).toEqual(['id']);
  });

  it('refuse an array of int64', () => {
    expect(() => int64Properties(schema({ ids: { type: 'array', items: { format: 'int64' } } }))).toThrow(/array/);
  });
});

describe('the package’s client entry', () => {
  it('is exported as petstore-inventory/client, pointing at what the build makes of src/client/index.ts', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      name: string;
      exports: Record<string, { types: string; default: string }>;
    };
    const build = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8')) as {
      compilerOptions: { rootDir: string; outDir: string };
    };
    expect(pkg.name).toBe('petstore-inventory');
    const entry = pkg.exports['./client'];
    const built = (ext: string) => `./${build.compilerOptions.outDir}/client/index.${ext}`;
    expect(entry).toEqual({ types: built('d.ts'), default: built('js') });
    expect(readFileSync(join(root, build.compilerOptions.rootDir, 'client/index.ts'), 'utf8')).toMatch(
      /export const createPetstoreClient = /,
    );
  });
});
