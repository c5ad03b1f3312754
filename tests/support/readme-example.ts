import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const root = join(import.meta.dirname, '..', '..');

/**
 * Writes the first TypeScript block under the README's `heading` (a `## ` line) to `file`, its imports
 * of the package by name pointed at the source tree, and returns the file's path.
 */
export function writeReadmeExample(heading: string, file: string, imports: Readonly<Record<string, string>>): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.split(new RegExp(`^## ${heading}$`, 'm'))[1] ?? '';
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error(`README.md has no \`\`\`ts block under "## ${heading}"`);
  let code = block;
  for (const [name, path] of Object.entries(imports)) code = code.replaceAll(`from '${name}'`, `from '${path}'`);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, code);
  return file;
}

/** The lines of the first plain block after "It prints:" under the README's `heading`. */
export function readmeOutput(heading: string): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.split(new RegExp(`^## ${heading}$`, 'm'))[1] ?? '';
  const block = /It prints:\n\n```\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error(`README.md has no printed output under "## ${heading}"`);
  return block.trimEnd().split('\n');
}

/** The compiler's messages for `file` under the project's compiler options; none when it type-checks. */
export function typeErrors(file: string): string[] {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const program = ts.createProgram([file], { ...parsed.options, noEmit: true });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}
