import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const suites = join(import.meta.dirname, 'node-test', 'memory-contract.ts');

describe('the contract suites under node:test', () => {
  it('run over the memory adapters with node --test as under vitest, every case passing', async () => {
    // Without the variable by which node --test marks its own children: the child is a run of its own.
    const { NODE_TEST_CONTEXT: _parent, ...env } = process.env;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', suites], {
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
    const ports = ['InventoryRepository', 'PetCatalog', 'StockChangeFeed', 'WebhookStore', 'OrderBook', 'ApiKeyStore'];
    for (const port of [...ports, 'RateLimiter']) {
      expect(stdout).toMatch(new RegExp(`^ok \\d+ - ${port} contract: memory under node:test$`, 'm'));
    }
    expect(stdout).toMatch(/^# fail 0$/m);
    expect(Number(/^# pass (\d+)$/m.exec(stdout)?.[1])).toBeGreaterThan(100);
  }, 60_000);
});
