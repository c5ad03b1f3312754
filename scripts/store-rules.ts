/**
 * Writes docs/store-rules.md: every rule a store (and a rate limiter) must keep, as the contract suites
 * of petstore-inventory/testing state them, one line a test, grouped as the suites group them. The page
 * is read from the suites themselves (a runner that records names and runs nothing), so it says what
 * they check; tests/contracts/store-rules-page.test.ts fails when the page is not the suites' current one.
 * Usage: node --import tsx scripts/store-rules.ts
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeRateLimiterContract, describeStorageContract, type TestRunner } from '../src/testing/index.js';

export const STORE_RULES_PAGE = join(import.meta.dirname, '..', 'docs', 'store-rules.md');

/** The page's text. */
export function storeRulesPage(): string {
  const lines: string[] = [];
  let depth = 0;
  const never = async () => {};
  const recorder: TestRunner = {
    describe: (name, body) => {
      // The suites name themselves "<Port> contract: <adapter>": the adapter is left out here.
      const title = depth === 0 ? name.replace(/: rules$/, '') : name;
      lines.push('', `${'#'.repeat(Math.min(depth + 2, 6))} ${title}`, '');
      depth += 1;
      body();
      depth -= 1;
    },
    it: (name) => {
      lines.push(`- ${name}`);
    },
    beforeEach: never,
    afterEach: never,
  };
  const unused = () => Promise.reject(new Error('the page runs no test'));
  describeStorageContract('rules', unused, recorder);
  describeRateLimiterContract('rules', unused, recorder);
  return `# The rules a store must keep

Generated from the contract suites of \`petstore-inventory/testing\` by \`node --import tsx scripts/store-rules.ts\`:
each line is one test, stated as the rule it checks. A store (or rate limiter) that breaks one fails that
test with \`rule broken: <the rule> (<the suite>); saw: <what the assertion saw>\`.
${lines.join('\n').replace(/\n{3,}/g, '\n\n')}
`;
}

if (import.meta.filename === process.argv[1]) {
  writeFileSync(STORE_RULES_PAGE, storeRulesPage());
  process.stderr.write(`wrote ${STORE_RULES_PAGE}\n`);
}
