import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../src/composition/config.js';

const OPERATIONS = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');

/** The variables `readConfig` looks up, whichever way it finds them: every name it asks the environment for. */
function variablesReadConfigReads(): string[] {
  const asked = new Set<string>();
  const env = new Proxy<Record<string, string | undefined>>(
    {},
    {
      get: (_target, name) => {
        if (typeof name === 'string') asked.add(name);
        return undefined;
      },
    },
  );
  readConfig(env);
  return [...asked].sort();
}

/** The variable each row of a table in docs/operations.md describes: a first cell that is one backquoted NAME. */
const describedVariables = (): string[] =>
  OPERATIONS.split('\n').flatMap((line) => {
    const name = /^\| `([A-Z][A-Z0-9_]*)` \|/.exec(line)?.[1];
    return name === undefined ? [] : [name];
  });

describe('docs/operations.md describes the settings', () => {
  it('each setting readConfig reads, and no other, in its tables', () => {
    expect([...new Set(describedVariables())].sort()).toEqual(variablesReadConfigReads());
  });

  it('each setting once', () => {
    const described = describedVariables();
    expect(described.filter((name, i) => described.indexOf(name) !== i)).toEqual([]);
  });
});
