import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quantity } from '../../src/domain/quantity.js';
import { aPet } from '../../src/testing/index.js';
import { type HttpFixture, startHttpFixture } from '../http/support/http-fixture.js';
import { typeErrors, writeReadmeExample } from '../support/readme-example.js';

const root = join(import.meta.dirname, '..', '..');
const dir = join(root, '.vitest-tmp', 'readme-client');

describe('the README’s client example', () => {
  // The example imports the package's client entry by name; here it is the source tree.
  const file = writeReadmeExample('The typed client', join(dir, 'client-example.ts'), {
    'petstore-inventory/client': '../../src/client/index.js',
  });
  let fixture: HttpFixture;
  let key: string;
  beforeAll(async () => {
    fixture = await startHttpFixture();
    await fixture.addPets(
      aPet(1, { quantity: quantity(3) }),
      aPet(2, { quantity: quantity(1), status: 'pending' }),
      aPet(9007199254740993n, { quantity: quantity(2) }),
    );
    key = (await fixture.bearer('free')).slice('Bearer '.length);
  });
  afterAll(async () => {
    await fixture?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('type-checks under the project’s compiler options', () => {
    expect(typeErrors(file)).toEqual([]);
  });

  it('runs against a service and prints what the README says it prints', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', file], {
      cwd: root,
      env: { ...process.env, PETSTORE_URL: `${fixture.origin}/v1`, PETSTORE_KEY: key },
    });
    expect(stdout.trim().split('\n')).toEqual([
      '{',
      '  petId: 9007199254740993n,',
      '  quantity: 0,',
      '  reserved: 0,',
      '  available: 0,',
      "  status: 'sold'",
      '}',
      '404 pet_not_found',
      '1n 3 available',
      '2n 1 pending',
    ]);
  });
});
