import { describe, expect, it } from 'vitest';
import { createMemoryAdapters } from '../../src/adapters/memory/memory-adapters.js';
import type { ApiKeyStore } from '../../src/application/ports/api-key-store.js';
import {
  describeApiKeyStoreContract,
  type MakeStorage,
  ManualClock,
  type TestRunner,
} from '../../src/testing/index.js';

/** A runner that only records the suites' tests, to run them here and read how each fails. */
function recordingRunner() {
  const tests: { name: string; body: () => Promise<void> }[] = [];
  const before: (() => Promise<void>)[] = [];
  const after: (() => Promise<void>)[] = [];
  const runner: TestRunner = {
    describe: (_name, body) => body(),
    it: (name, body) => tests.push({ name, body }),
    beforeEach: async (hook) => before.push(hook),
    afterEach: async (hook) => after.push(hook),
  };
  /** Runs every test with its hooks; resolves to each failure's message, by test name. */
  const failures = async (): Promise<Map<string, string>> => {
    const failed = new Map<string, string>();
    for (const { name, body } of tests) {
      for (const hook of before) await hook();
      try {
        await body();
      } catch (error) {
        failed.set(name, error instanceof Error ? error.message : String(error));
      } finally {
        for (const hook of after) await hook();
      }
    }
    return failed;
  };
  return { runner, failures };
}

/** The memory store with `keys` changed by `breakKeys`: a store that breaks a rule on purpose. */
const brokenStore =
  (breakKeys: (keys: ApiKeyStore) => ApiKeyStore): MakeStorage =>
  async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1));
    const memory = createMemoryAdapters(clock);
    return { ...memory, keys: breakKeys(memory.keys), clock, close: async () => {} };
  };

describe('a store that breaks a rule of petstore-inventory/testing', () => {
  it('fails with a message that names the rule it broke and what the suite saw', async () => {
    const { runner, failures } = recordingRunner();
    // Revocation forgotten: the key is answered as it was, never revoked.
    describeApiKeyStoreContract(
      'forgets revocations',
      brokenStore((keys) =>
        Object.assign(Object.create(keys) as ApiKeyStore, {
          revoke: async (id: string) => keys.findById(id),
        }),
      ),
      runner,
    );
    const failed = await failures();
    const message = failed.get('revokes a key once, keeping the first revocation time');
    expect(message).toMatch(
      /^rule broken: revokes a key once, keeping the first revocation time \(ApiKeyStore contract: forgets revocations\); saw: /,
    );
    // What it saw: no revocation time where the rule wants the first one, 100.
    expect(message).toMatch(/saw: Expected values to be strictly equal:\s+null !== 100/);
  });

  it('passes every rule when nothing is broken, so the failure above is the break’s', async () => {
    const { runner, failures } = recordingRunner();
    describeApiKeyStoreContract(
      'memory',
      brokenStore((keys) => keys),
      runner,
    );
    expect([...(await failures()).entries()]).toEqual([]);
  });
});
