/**
 * What a contract suite needs of a test runner: the four functions that `node:test` and vitest both
 * export under these names, passed in as they are (`{ describe, it, beforeEach, afterEach }`), so that a
 * suite runs under either, and under any runner with the same shape. The suites assert through
 * `node:assert/strict` and await every assertion on a promise; they never call the runner's `expect`.
 */
export interface TestRunner {
  /** Groups tests; `body` registers them synchronously. */
  readonly describe: (name: string, body: () => void) => unknown;
  /** Registers one test, which passes unless its promise rejects. */
  readonly it: (name: string, body: () => Promise<void>) => unknown;
  /** Runs `hook` before each test of the group it is called in. */
  readonly beforeEach: (hook: () => Promise<void>) => unknown;
  /** Runs `hook` after each test of the group it is called in, whether the test passed or not. */
  readonly afterEach: (hook: () => Promise<void>) => unknown;
}

const NAMING = Symbol('names the rule a failure broke');

/**
 * The runner as the suites use it: a test that fails throws its error with the rule it checks in front,
 * as its groups and its name state it ("rule broken: revoke: a revoked key is found revoked, ... ;
 * saw: ..."), so that a store's author reads which rule broke and what the suite saw, whatever the
 * assertion. Applied once however often a suite hands the runner on to the suites it holds.
 */
export function namingRules(runner: TestRunner): TestRunner {
  if (NAMING in runner) return runner;
  const groups: string[] = [];
  const named: TestRunner & { readonly [NAMING]: true } = {
    [NAMING]: true,
    describe: (name, body) =>
      runner.describe(name, () => {
        groups.push(name);
        try {
          body();
        } finally {
          groups.pop();
        }
      }),
    it: (name, body) => {
      const [suite = '', ...within] = groups;
      const rule = [...within, name].join(': ');
      return runner.it(name, async () => {
        try {
          await body();
        } catch (error) {
          if (error instanceof Error) error.message = `rule broken: ${rule} (${suite}); saw: ${error.message}`;
          throw error;
        }
      });
    },
    beforeEach: runner.beforeEach,
    afterEach: runner.afterEach,
  };
  return named;
}
