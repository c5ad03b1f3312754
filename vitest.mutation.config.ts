import { defineConfig } from 'vitest/config';

// The tier that needs no I/O (no server, no database, no network): what the mutation run measures the
// core against. No global setup: these tests need no console bundle.
export default defineConfig({
  test: {
    include: ['tests/unit/**/*.test.ts', 'tests/contracts/memory.test.ts'],
    testTimeout: 30_000,
  },
});
