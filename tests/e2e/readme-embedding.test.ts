import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { readmeExamples, typeErrors } from '../support/readme-example.js';

const root = join(import.meta.dirname, '..', '..');
const dir = join(root, '.vitest-tmp', 'readme');
const run = promisify(execFile);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const examples = readmeExamples('The core: `petstore-inventory`');

// The first is the section's opening example, which tests/package/ also runs from the packed tarball.
describe('the README’s use cases of the core, each block a file of its own', () => {
  it('show set, adjust, reserve and commit, release, a batch, a history and the feed', () => {
    const titles = examples.map((example) => example.title).join('\n');
    for (const word of ['Set', 'Adjust', 'commit', 'release', 'Several pets', 'history', 'feed']) {
      expect(titles).toContain(word);
    }
  });

  it.each(examples.map((example, i) => [example.title, i] as const))(
    '%s: type-checks strict, runs, and prints what the README says',
    async (_title, i) => {
      const example = examples[i];
      if (example === undefined) throw new Error(`no example ${i}`);
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `core-example-${i}.ts`);
      writeFileSync(file, example.code.replaceAll("from 'petstore-inventory'", "from '../../src/index.js'"));
      expect(typeErrors(file)).toEqual([]);
      const { stdout } = await run(process.execPath, ['--import', 'tsx', file], { cwd: root });
      expect(stdout.trimEnd().split('\n')).toEqual(example.output);
    },
  );
});
