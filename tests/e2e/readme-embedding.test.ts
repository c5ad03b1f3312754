import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const dir = join(root, '.vitest-tmp', 'readme');
const file = join(dir, 'embedding-example.ts');

/** The first TypeScript block under the README's "Embedding the core" heading. */
function readmeExample(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.split(/^## Embedding the core$/m)[1] ?? '';
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('README.md has no ```ts block under "## Embedding the core"');
  // The example imports the package by name; here it is the source tree.
  return block.replaceAll("from 'petstore-inventory'", "from '../../src/index.js'");
}

describe('the README’s embedding example', () => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, readmeExample());
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('type-checks under the project’s compiler options', () => {
    const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
    const program = ts.createProgram([file], { ...parsed.options, noEmit: true });
    const messages = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(messages).toEqual([]);
  });

  it('runs and prints what the README says it prints', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', file], { cwd: root });
    expect(stdout.trim().split('\n')).toEqual([
      "{ petId: 9007199254740993n, quantity: 0, status: 'sold' } version 2",
      '9007199254740993 0 sold',
      '9007199254740994 12 pending',
    ]);
  });
});
