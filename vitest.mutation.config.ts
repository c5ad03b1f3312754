import { defineConfig } from 'vitest/config';

// The tier that needs no I/O (no server, no database, no network): what the mutation run measures the
// core against. No global setup: these tests need no console bundle. The files share their modules
// (isolate: false): Stryker reruns a few files for each of some 1,700 mutants, and importing them
// afresh each time cost more than the tests; none of them leaves state in a module.
export default defineConfig({
  test: {
    include: ['tests/unit/**/*.test.ts', 'tests/contracts/memory.test.ts'],
    testTimeout: 30_000,
    isolate: false,
  },
});
