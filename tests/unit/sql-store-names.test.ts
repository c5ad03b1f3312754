import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * A name used by both SQL stores means the same shape in both, or it is renamed (docs/decisions.md,
 * "PostgreSQL: a group write that names its effects"): a reader who finds `entryOfRow` in one store
 * must not take it for the other's. This lists the names each store's files declare at their top level
 * (exported or not) and fails on any name both declare, unless it is allowed below and declared with
 * the same type (or, without one, the same value) in both.
 */

const ADAPTERS = join(import.meta.dirname, '../../src/adapters');

/** Names both stores may declare, as the same constant: their declarations are compared below. */
const SAME_SHAPE = new Set(['EXPORT_CHUNK', 'LIST_CHUNK', 'MIGRATIONS', 'WALK_BUDGET_MIN', 'WALK_BUDGET_PER_ENTRY']);

/** A top-level name of a file, with the text that gives its shape: its declared type, else its value. */
interface Declared {
  readonly name: string;
  readonly where: string;
  readonly shape: string;
}

function namesOf(source: string, where: string): Declared[] {
  const file = ts.createSourceFile(where, source, ts.ScriptTarget.Latest, true);
  const found: Declared[] = [];
  const add = (name: string, shape: ts.Node | undefined) =>
    found.push({ name, where, shape: shape?.getText(file) ?? `declared in ${where}` });
  const bound = (name: ts.BindingName, shape: ts.Node | undefined): void => {
    if (ts.isIdentifier(name)) add(name.text, shape);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bound(element.name, undefined);
  };
  for (const statement of file.statements) {
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        bound(declaration.name, declaration.type ?? declaration.initializer);
      }
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement)) &&
      statement.name !== undefined
    ) {
      add(statement.name.text, undefined);
    } else if (
      ts.isExportDeclaration(statement) &&
      statement.exportClause &&
      ts.isNamedExports(statement.exportClause)
    ) {
      for (const element of statement.exportClause.elements) add(element.name.text, undefined);
    }
  }
  return found;
}

function storeNames(store: string): Declared[] {
  const folder = join(ADAPTERS, store);
  return readdirSync(folder)
    .filter((name) => name.endsWith('.ts'))
    .flatMap((name) => namesOf(readFileSync(join(folder, name), 'utf8'), `${store}/${name}`));
}

describe('the names of the two SQL stores', () => {
  it('finds every kind of top-level name a file declares, exported or not', () => {
    const source = `export const a = 1; const { b, c: [d] } = x; function e() {} export class F {}
      interface G {} export type H = 1; enum I {} export { j as K } from './j.js'; import { L } from './l.js';
      export const M: readonly string[] = [];`;
    expect(namesOf(source, 'f.ts').map(({ name }) => name)).toEqual(['a', 'b', 'd', 'e', 'F', 'G', 'H', 'I', 'K', 'M']);
    expect(namesOf(source, 'f.ts').find(({ name }) => name === 'M')?.shape).toBe('readonly string[]');
  });

  it('gives no name to both stores unless it is the same constant in both', () => {
    const sqlite = storeNames('sqlite');
    const postgres = storeNames('postgres');
    expect(postgres.map(({ name }) => name)).toContain('writeGroup');
    const differing = postgres.flatMap((pg) =>
      sqlite
        .filter(({ name }) => name === pg.name)
        .filter((other) => !SAME_SHAPE.has(pg.name) || other.shape !== pg.shape)
        .map((other) => `${pg.name}: ${pg.where} and ${other.where}`),
    );
    expect(differing).toEqual([]);
  });
});
