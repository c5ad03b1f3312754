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

/** A TypeScript block of the README and the lines it says the block prints. */
export interface ReadmeExample {
  /** The `#### ` heading above it, or the `### ` one for the block that opens the section. */
  readonly title: string;
  readonly code: string;
  readonly output: readonly string[];
}

/**
 * Every ```ts block under the README's `### heading` (up to the next `### ` or `## `), each with the
 * plain block after its "It prints:".
 */
export function readmeExamples(heading: string): ReadmeExample[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n### ${heading}\n`);
  if (start === -1) throw new Error(`README.md has no "### ${heading}"`);
  const rest = readme.slice(start + 1);
  const end = rest.slice(4).search(/\n##(#)? /);
  const section = end === -1 ? rest : rest.slice(0, end + 4);
  const examples: ReadmeExample[] = [];
  let title = heading;
  for (const match of section.matchAll(/^#### (.+)$|```ts\n([\s\S]*?)```\n\nIt prints:\n\n```\n([\s\S]*?)```/gm)) {
    if (match[1] !== undefined) title = match[1];
    else examples.push({ title, code: match[2] as string, output: (match[3] as string).trimEnd().split('\n') });
  }
  return examples;
}
