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
