// @ts-check
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const contract = fileURLToPath(new URL('./ledger-contract.test.js', import.meta.url));

/**
 * Runs the contract over a ledger broken as `BREAK` says, in a child process (the ledger reads it when
 * loaded), and answers its exit code and the names of the tests that failed.
 * @param {string} brokenRule
 */
function runBroken(brokenRule) {
  // Without the variable by which node --test tells its own children apart: the child is a run of its own.
  const { NODE_TEST_CONTEXT: _parent, ...env } = process.env;
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', contract], {
    env: { ...env, BREAK: brokenRule },
    encoding: 'utf8',
  });
  const failed = [...run.stdout.matchAll(/^\s*not ok \d+ - (.+)$/gm)].map(([, name]) => name?.trim());
  return { status: run.status, failed };
}

describe('the contract suites catch a ledger broken on purpose', () => {
  it('fails when the ledger lists pets in the order they were added, not by id', () => {
    const { status, failed } = runBroken('list-order');
    assert.notEqual(status, 0);
    assert.ok(
      failed.includes('lists every entry once, ordered by petId ascending, int64 extremes included'),
      failed.join('\n'),
    );
  });

  it('fails when the ledger applies a stock write but records no change of it', () => {
    const { status, failed } = runBroken('no-change-record');
    assert.notEqual(status, 0);
    assert.ok(failed.includes('answers every change newest first, with who made it and when'), failed.join('\n'));
    assert.ok(
      failed.includes('lists every change of every pet oldest first, each after the one before it'),
      failed.join('\n'),
    );
  });

  it('passes the same suites when nothing is broken', () => {
    const { status, failed } = runBroken('');
    assert.deepEqual(failed, []);
    assert.equal(status, 0);
  });
});
