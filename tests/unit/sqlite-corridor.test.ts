import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/adapters/sqlite/store-operations.js';

/*
 * docs/decisions.md ("SQLite: one store operation, one place on each side of the thread"): a new write
 * of the SQLite store touches its table of operations, the statements that run it, and the repository's
 * method that asks for it. Every layer between them (the queues, the health watcher, the thread's
 * messages and entry) carries a name and a request and names no operation, so no operation's name is
 * written in more files of the adapter than those three.
 */

const ADAPTER = join(import.meta.dirname, '../../src/adapters/sqlite');
const MOST_FILES = 3;

const sources = readdirSync(ADAPTER, { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.ts'))
  .map((name) => ({ name, text: readFileSync(join(ADAPTER, name), 'utf8') }));

/** The files of the adapter that name `operation` as a word, in code or comments alike. */
const filesNaming = (operation: string): string[] =>
  sources.filter(({ text }) => new RegExp(`\\b${operation}\\b`).test(text)).map(({ name }) => name);

describe('a SQLite store operation is written once on each side of the writer thread', () => {
  const names = Object.keys(OPERATIONS);

  it(`no operation's name is forwarded by hand through more than ${MOST_FILES} files of the adapter`, () => {
    const forwarded = names.flatMap((name) => {
      const files = filesNaming(name);
      return files.length > MOST_FILES ? [`${name}: ${files.join(', ')}`] : [];
    });
    expect(forwarded).toEqual([]);
  });

  it('sees what it counts: every operation is named in its table and asked for by the repository', () => {
    expect(names).toEqual(expect.arrayContaining(['writeStock', 'writeReservation', 'markLapse']));
    for (const name of names) {
      expect(filesNaming(name)).toEqual(
        expect.arrayContaining(['store-operations.ts', 'sqlite-inventory-repository.ts']),
      );
    }
  });
});
