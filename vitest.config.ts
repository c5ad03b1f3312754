import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * The files that time a server under attack or under faults (answers within 1 s, 5xx only in fault
 * windows, resident memory): they run alone, one after the other, once every other file has ended, so
 * that their figures count no other file's load.
 */
const ALONE = ['tests/e2e/soak.test.ts', 'tests/e2e/connection-attacks.test.ts', 'tests/e2e/nginx-hardening.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['tests/setup/global-setup.ts'],
    reporters: ['default', './tests/setup/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits 1 s by default: a page in chromium, or a service process re-reading its store,
    // can take longer than that on a loaded machine. A poll ends as soon as its condition holds.
    expect: { poll: { timeout: 10_000 } },
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['tests/**/*.test.ts'],
          exclude: ALONE,
          // Most files wait on servers they start (PostgreSQL, Redis, nginx, the service, chromium): two
          // at once on two CPUs, where vitest's default (CPUs - 1) runs one.
          maxWorkers: Math.max(2, availableParallelism() - 1),
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'alone', include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
