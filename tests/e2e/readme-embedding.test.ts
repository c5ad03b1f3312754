import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { readmeOutput, typeErrors, writeReadmeExample } from '../support/readme-example.js';

const root = join(import.meta.dirname, '..', '..');
const dir = join(root, '.vitest-tmp', 'readme');

describe('the README’s embedding example', () => {
  // The example imports the package by name; here it is the source tree.
  const file = writeReadmeExample('Embedding', join(dir, 'embedding-example.ts'), {
    'petstore-inventory': '../../src/index.js',
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('type-checks under the project’s compiler options', () => {
    expect(typeErrors(file)).toEqual([]);
  });

  it('runs and prints what the README says it prints', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', file], { cwd: root });
    expect(stdout.trim().split('\n')).toEqual(readmeOutput('Embedding'));
  });
});
