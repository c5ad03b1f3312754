import { afterEach, beforeEach, describe, it } from 'node:test';
import type { TestRunner } from '../../src/testing/index.js';

/**
 * node:test's functions fit the suites' runner as they are, so an adapter written in TypeScript passes
 * them without a cast: `npm run typecheck` checks this file (vitest's fit too: see memory.test.ts).
 * examples/storage-adapter runs the suites under `node --test`.
 */
export const nodeTestRunner: TestRunner = { describe, it, beforeEach, afterEach };
