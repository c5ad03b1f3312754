import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STORE_RULES_PAGE, storeRulesPage } from '../../scripts/store-rules.js';

describe('docs/store-rules.md, the rules a store must keep', () => {
  it('is the page the contract suites make now (node --import tsx scripts/store-rules.ts writes it)', () => {
    expect(readFileSync(STORE_RULES_PAGE, 'utf8')).toBe(storeRulesPage());
  });

  it('states the rules of every port the suites check', () => {
    const page = storeRulesPage();
    for (const port of [
      'InventoryRepository',
      'PetCatalog',
      'StockChangeFeed',
      'WebhookStore',
      'OrderBook',
      'ApiKeyStore',
      'RateLimiter',
    ]) {
      expect(page).toContain(`## ${port} contract`);
    }
    expect(page).toContain('- revokes a key once, keeping the first revocation time');
  });
});
