import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { heldAt, lapsedBy } from '../../src/adapters/sql/hold-expiry.js';

/*
 * The instant a hold lapses is written in SQL in one place, src/adapters/sql/hold-expiry.ts, whose
 * `lapsedBy` and `heldAt` every statement of every store takes (see docs/decisions.md, "The expiry of
 * holds decided in the core"). This reads every string of the source as TypeScript parses it (a
 * statement, or a fragment of one; a template's interpolations read as `{expr}`) and finds those that
 * compare an `expires_at_ms` column themselves. The other tables with that column (idempotency records
 * and claims, API keys) expire by rules of their own, and are told by the table the statement names.
 */

const SRC = join(import.meta.dirname, '../../src');

/** Tables whose `expires_at_ms` is not a hold's: a statement that names one of them, and no hold, may compare it. */
const NOT_HOLDS = /\b(idempotency_records|idempotency_claims|api_keys)\b/;
const HOLDS = /\breservations\b/;

/**
 * `expires_at_ms` (qualified or not) on either side of an ordering comparison, the other side anything
 * but another column of the row (the CHECK that a hold expires after it was made).
 */
const COMPARES = [
  /\b(?:\w+\.)?expires_at_ms\s*[<>]=?(?!=?\s*(?:\w+\.)?created_at_ms\b)/,
  /[<>]=?\s*(?:\w+\.)?expires_at_ms\b/,
];

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

interface Literal {
  readonly where: string;
  readonly text: string;
}

/** Every string and template of the file, as the compiler reads them (comments are not strings). */
function literalsOf(path: string): Literal[] {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Literal[] = [];
  const add = (node: ts.Node, text: string) => {
    const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
    found.push({ where: `${relative(SRC, path)}:${line}`, text });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) add(node, node.text);
    else if (ts.isTemplateExpression(node)) {
      add(node, node.head.text + node.templateSpans.map((span) => `{expr}${span.literal.text}`).join(''));
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

const comparesExpiry = (text: string): boolean => COMPARES.some((pattern) => pattern.test(text));
const ofAnotherTable = (text: string): boolean => NOT_HOLDS.test(text) && !HOLDS.test(text);

describe('the instant a hold lapses is written in SQL by hold-expiry.ts alone', () => {
  const literals = sources(SRC).flatMap(literalsOf);

  it('no statement of any store compares a hold expiry itself', () => {
    const own = literals.filter(({ text }) => comparesExpiry(text) && !ofAnotherTable(text));
    expect(own.map(({ where, text }) => `${where}: ${text.replace(/\s+/g, ' ').trim()}`)).toEqual([]);
  });

  it('finds the comparisons it looks for: the other tables keep theirs, and the boundary reads as one', () => {
    // Without these the check above would pass by seeing nothing.
    const others = literals.filter(({ text }) => comparesExpiry(text) && ofAnotherTable(text));
    expect(others.length).toBeGreaterThan(0);
    expect(comparesExpiry(lapsedBy('r.expires_at_ms', '$3::bigint'))).toBe(true);
    expect(comparesExpiry(heldAt('expires_at_ms', '@now'))).toBe(true);
    expect(comparesExpiry('(expires_at_ms, id) > ($2, $3::text)')).toBe(false);
    expect(comparesExpiry('CHECK (expires_at_ms > created_at_ms)')).toBe(false);
    expect(comparesExpiry('AND h.expires_at_ms <= {expr}) END')).toBe(true);
    expect(comparesExpiry('AND $1 >= expires_at_ms')).toBe(true);
  });
});
